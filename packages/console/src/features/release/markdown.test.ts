import { describe, expect, it } from 'vitest';
import { safeUrl } from './markdown.ts';

describe('release note URL policy', () => {
  it('keeps http(s), mailto, tel and relative links', () => {
    for (const u of [
      'https://example.com/x',
      'http://a.b',
      'mailto:a@b.c',
      'tel:+1',
      '/docs',
      'notes.html',
      '#top',
      '?q=1',
      'a/b:c',
    ])
      expect(safeUrl(u, 'href')).toBe(u);
  });
  it('drops javascript:, data:, vbscript: and obfuscated schemes', () => {
    for (const u of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,<script>',
      'vbscript:x',
      'java\tscript:alert(1)',
      'file:///etc/passwd',
    ])
      expect(safeUrl(u, 'href')).toBe('');
  });
  it('allows images over http(s) only', () => {
    expect(safeUrl('https://x/y.png', 'src')).toBe('https://x/y.png');
    expect(safeUrl('data:image/png;base64,AA', 'src')).toBe('');
    expect(safeUrl('/local.png', 'src')).toBe('');
  });
});
