import { describe, expect, it } from 'vitest';
import { escapeHtml } from './escapeHtml.ts';

describe('escapeHtml', () => {
  it('turns markup into text', () => {
    expect(escapeHtml('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(escapeHtml("\"><svg onload='x'>")).toBe('&quot;&gt;&lt;svg onload=&#39;x&#39;&gt;');
    expect(escapeHtml('a & b &amp; c')).toBe('a &amp; b &amp;amp; c');
  });

  it('keeps plain text and non-strings readable', () => {
    expect(escapeHtml('节点 worker-1 · 10.0.0.2')).toBe('节点 worker-1 · 10.0.0.2');
    expect(escapeHtml(42)).toBe('42');
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(undefined)).toBe('');
  });

  it('yields no tag when parsed as HTML', () => {
    const hostile = '<b onmouseover="x()">bold</b><script>x()</script>';
    expect(escapeHtml(hostile)).not.toMatch(/[<>"']/);
  });
});
