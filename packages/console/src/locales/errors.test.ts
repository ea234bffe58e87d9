import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, ERROR_CODES, LANGUAGES } from '@crawldeck/shared/core';
import i18n, { loadLanguage } from './index.ts';

const paramsOf = (text: string) =>
  [...text.matchAll(/\{\{(\w+)\}\}/g)]
    .map((m) => m[1])
    .sort()
    .join();

describe('texts of the server error codes', () => {
  beforeAll(() => Promise.all(LANGUAGES.map(loadLanguage)));

  it('every code of the catalogue has a text in every language, with the params of the catalogue', () => {
    const problems: string[] = [];
    for (const lang of LANGUAGES) {
      for (const code of ERROR_CODES) {
        const text: unknown = i18n.getResource(lang, 'errors', code);
        if (typeof text !== 'string' || !text.trim()) problems.push(`${lang}: ${code} has no text`);
        else if (paramsOf(text) !== paramsOf(ERROR_CATALOGUE[code]))
          problems.push(`${lang}: ${code} uses other params than the catalogue`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('fills the params of a validation error in Chinese', () => {
    const t = i18n.getFixedT('zh', 'errors');
    expect(t('validation.enum', { where: 'body', field: 'events.0', allowed: 'task_finished, task_error' })).toBe(
      'body 字段 "events.0" 只能是以下之一：task_finished, task_error',
    );
  });
});
