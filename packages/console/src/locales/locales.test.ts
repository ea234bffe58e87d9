import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '@crawldeck/shared';
import type { Messages } from './index.ts';
import { resources } from './all.ts';

function flatten(obj: Messages, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) => (typeof v === 'string' ? [prefix + k] : flatten(v, `${prefix}${k}.`)));
}

describe('locales', () => {
  it('has every language of the product', () => {
    for (const lang of LANGUAGES) expect(Object.keys(resources)).toContain(lang);
  });

  it('has the same areas in every language', () => {
    const [first, ...rest] = LANGUAGES;
    for (const lang of rest) expect(Object.keys(resources[lang]).sort()).toEqual(Object.keys(resources[first]).sort());
  });

  it('has no key in one language only', () => {
    const areas = new Set(LANGUAGES.flatMap((l) => Object.keys(resources[l] ?? {})));
    const problems: string[] = [];
    for (const area of areas) {
      const keys = Object.fromEntries(LANGUAGES.map((l) => [l, new Set(flatten(resources[l]?.[area] ?? {}))]));
      for (const lang of LANGUAGES) {
        for (const key of keys[lang]) {
          for (const other of LANGUAGES)
            if (!keys[other].has(key)) problems.push(`${area}:${key} exists in ${lang} but not in ${other}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('has no empty texts', () => {
    const empty = LANGUAGES.flatMap((l) =>
      Object.entries(resources[l]).flatMap(([area, msgs]) => {
        const walk = (o: Messages, p: string): string[] =>
          Object.entries(o).flatMap(([k, v]) =>
            typeof v === 'string' ? (v.trim() ? [] : [`${l}/${area}:${p}${k}`]) : walk(v, `${p}${k}.`),
          );
        return walk(msgs, '');
      }),
    );
    expect(empty).toEqual([]);
  });
});
