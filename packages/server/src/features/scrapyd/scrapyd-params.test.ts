import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { crawlParam, crawldeckPriority, mergeParams, parseForm, scheduleRequest } from './scrapyd-params.ts';
import { settingsEntryPoint } from './egg.ts';

describe('schedule.json parameters', () => {
  it('separates spider arguments from its own parameters; an argument given twice counts with its first value', () => {
    const p = mergeParams(
      { project: 'shop' },
      parseForm('spider=products&base=a&base=b&setting=DOWNLOAD_DELAY=2&setting=X=y%3Dz&jobid=j1&_version=v2'),
    );
    expect(scheduleRequest(p)).toEqual({
      project: 'shop',
      spider: 'products',
      version: 'v2',
      jobId: 'j1',
      priority: 3,
      args: { base: 'a' },
      settings: { DOWNLOAD_DELAY: '2', X: 'y=z' },
    });
  });

  it("refuses what Scrapyd would pass on unchecked, with Scrapyd's wording where it has one", () => {
    expect(() => scheduleRequest({ project: ['p'] })).toThrow("'spider' parameter is required");
    expect(() => scheduleRequest({ project: ['p'], spider: ['s'], setting: ['NOEQUALS'] })).toThrow(
      "setting 'NOEQUALS' is not of the form NAME=VALUE",
    );
    expect(() => scheduleRequest({ project: ['p'], spider: ['s'], 'a;b': ['1'] })).toThrow(/not allowed/);
    expect(() => scheduleRequest({ project: ['p'], spider: ['s'], _job: ['x'] })).toThrow(/not allowed/);
    expect(() => scheduleRequest({ project: ['p'], spider: ['s'], jobid: ['../x'] })).toThrow(/not allowed/);
    expect(() => scheduleRequest({ project: ['p'], spider: ['s'], priority: ['high'] })).toThrow(/not a number/);
  });

  it("maps Scrapyd's priority (higher first, 0 by default) onto the queue's 1 (first) to 5 (last)", () => {
    expect([5, 2, 1, 0.5, 0, -1, -2, -9].map(crawldeckPriority)).toEqual([1, 1, 2, 3, 3, 4, 5, 5]);
  });

  it('quotes every word of the command so the shell passes values through unchanged', () => {
    const param = crawlParam('products', 'j1', { q: "it's $HOME `x` a b" }, { USER_AGENT: 'a "b"' });
    const words = execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${param}`], { encoding: 'utf8' }).split('\n');
    expect(words.slice(0, -1)).toEqual([
      'products',
      '-a',
      '_job=j1',
      '-a',
      "q=it's $HOME `x` a b",
      '-s',
      'USER_AGENT=a "b"',
    ]);
  });
});

describe("an egg's entry points", () => {
  it('finds the settings module of the scrapy group only', () => {
    expect(settingsEntryPoint('[console_scripts]\nsettings = no.thanks\n\n[scrapy]\nsettings = shop.settings\n')).toBe(
      'shop.settings',
    );
    expect(settingsEntryPoint('[other]\nsettings = shop.settings\n')).toBeUndefined();
  });
});
