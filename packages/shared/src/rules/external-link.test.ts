import { describe, expect, it } from 'vitest';
import { isExternalLink } from './validation.ts';

describe('isExternalLink: menu entries that open in a new window', () => {
  it('accepts http, https, mailto and tel', () => {
    expect(isExternalLink('http://example.com')).toBe(true);
    expect(isExternalLink('https://example.com/docs')).toBe(true);
    expect(isExternalLink('mailto:ops@example.com')).toBe(true);
    expect(isExternalLink('tel:+861234')).toBe(true);
  });

  it('rejects app paths and other schemes', () => {
    expect(isExternalLink('/spiders')).toBe(false);
    expect(isExternalLink('spiders/1')).toBe(false);
    expect(isExternalLink('')).toBe(false);
    expect(isExternalLink('javascript:alert(1)')).toBe(false);
    expect(isExternalLink('data:text/html,x')).toBe(false);
    expect(isExternalLink('ftp://example.com')).toBe(false);
    expect(isExternalLink(' https://example.com')).toBe(false);
  });
});
