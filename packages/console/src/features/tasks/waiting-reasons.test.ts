import { beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '@crawldeck/shared/core';
import { TASK_WAIT_REASONS } from '@crawldeck/shared';
import i18n, { loadLanguage } from '../../locales/index.ts';

describe('why a pending task waits', () => {
  beforeAll(() => Promise.all(LANGUAGES.map(loadLanguage)));

  it('every reason the server gives has a text in every language', () => {
    const missing: string[] = [];
    for (const lang of LANGUAGES)
      for (const reason of [...TASK_WAIT_REASONS, 'label']) {
        const text: unknown = i18n.getResource(lang, 'tasks', `waiting.${reason}`);
        if (typeof text !== 'string' || !text.trim()) missing.push(`${lang}: ${reason}`);
      }
    expect(missing).toEqual([]);
  });
});
