import { describe, expect, it } from 'vitest';
import { buildParam, scrapyMode } from './run-param.ts';

describe('Run dialog param', () => {
  it('plain spiders: the param is the extra arguments', () => {
    expect(buildParam('python3 main.py', false, undefined, ' --pages 3 ')).toBe('--pages 3');
  });
  it('scrapy with a bare `scrapy crawl`: name then options', () => {
    expect(scrapyMode('scrapy crawl')).toEqual({ mode: 'name' });
    expect(buildParam('scrapy crawl', true, 'quotes', '-a tag=x')).toBe('quotes -a tag=x');
  });
  it('scrapy with an empty command: the whole crawl command', () => {
    expect(buildParam('', true, 'quotes', '')).toBe('scrapy crawl quotes');
  });
  it('scrapy command naming a spider: that name is fixed, options only', () => {
    expect(scrapyMode('scrapy crawl quotes -s X=1')).toEqual({ mode: 'fixed', fixedName: 'quotes' });
    expect(buildParam('scrapy crawl quotes', true, 'other', '-s LOG_LEVEL=INFO')).toBe('-s LOG_LEVEL=INFO');
  });
});
