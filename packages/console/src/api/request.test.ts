import { beforeAll, describe, expect, it } from 'vitest';
import i18n, { loadLanguage } from '../locales/index.ts';
import { attachmentName, failureToastText } from './request.ts';

describe('the toast of a failed call', () => {
  beforeAll(async () => {
    await loadLanguage('en');
    await i18n.changeLanguage('en');
  });

  it('is the reason alone when the server refused with one, the catalogue form otherwise', () => {
    expect(failureToastText(409, '/api/spiders/x', 'a task is running')).toBe('a task is running');
    expect(failureToastText(404, '/api/x', '')).toBe('Request Error 404: /api/x.');
    expect(failureToastText(500, '/api/x', 'boom')).toBe('Request Error 500: /api/x. boom');
  });
});

describe('the name of a download', () => {
  it('prefers the exact UTF-8 name, then the plain one', () => {
    expect(attachmentName(`attachment; filename="__-1.csv"; filename*=UTF-8''%E7%88%AC%E8%99%AB-1.csv`)).toBe(
      '爬虫-1.csv',
    );
    expect(attachmentName('attachment; filename="quotes-1.json"')).toBe('quotes-1.json');
    expect(attachmentName('attachment; filename=plain.jsonl')).toBe('plain.jsonl');
    expect(attachmentName(`attachment; filename="ok.csv"; filename*=UTF-8''%E7%ZZ`)).toBe('ok.csv');
    expect(attachmentName(null)).toBe('');
  });
});
