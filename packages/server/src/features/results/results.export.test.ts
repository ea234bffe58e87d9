import { describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import { csvRecord, csvRecords, neutralised, resultsBasename } from './results.export.ts';
import { attachmentDisposition } from '../../http/attachment.ts';

describe('CSV records of an export', () => {
  it('writes what csv-stringify writes, quotes, commas, line breaks and non-ASCII included', () => {
    const rows: Array<Array<string | number>> = [
      ['plain', 1, 2.5, -3],
      ['with, comma', 'with "quotes"', 'line\nbreak', 'carriage\rreturn', '"'],
      ['标题', '', ' spaced ', 'a""b', '{"k":"v, w"}'],
    ];
    for (const row of rows) expect(csvRecord(row)).toBe(stringify([row]));
  });
});

describe('CSV cells a spreadsheet would run as formulas', () => {
  const hostile = ['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\tlead', '\rlead', '=HYPERLINK("http://x","y")'];

  it('get a leading single quote, quoted and escaped as any other cell', () => {
    expect(csvRecords([{ a: '=1+1', b: '+SUM(A1)', c: '-2+3', d: '@cmd' }], ['a', 'b', 'c', 'd'], true)).toBe(
      "'=1+1,'+SUM(A1),'-2+3,'@cmd\n",
    );
    expect(csvRecords([{ a: '\tlead', b: '\rlead' }], ['a', 'b'], true)).toBe(`'\tlead,"'\rlead"\n`);
    expect(csvRecords([{ a: '=HYPERLINK("http://x","y")' }], ['a'], true)).toBe(`"'=HYPERLINK(""http://x"",""y"")"\n`);
    // Column names come from the crawled items too.
    expect(csvRecord(['=title', 'plain'], true)).toBe("'=title,plain\n");
  });

  it('leave harmless text, numbers, booleans and nested values alone', () => {
    const item = { t: 'a=b', n: -3, f: 1.5, yes: true, nested: { k: '=x' }, list: ['=y'], none: null, dash: 'x-y' };
    expect(csvRecords([item], Object.keys(item), true)).toBe('a=b,-3,1.5,true,"{""k"":""=x""}","[""=y""]",,x-y\n');
  });

  it('stay as they are when neutralising is turned off', () => {
    for (const text of hostile) expect(csvRecords([{ a: text }], ['a'], false)).toBe(csvRecord([text]));
    expect(neutralised('=1+1', false)).toBe('=1+1');
    expect(neutralised('=1+1', true)).toBe("'=1+1");
  });
});

describe('the name of a results download', () => {
  it('is the spider and the task, with characters no file system takes replaced', () => {
    expect(resultsBasename('quotes', 'abc123')).toBe('quotes-abc123');
    expect(resultsBasename('a/b:"c"', 'abc123')).toBe('a_b_c_-abc123');
    expect(resultsBasename(undefined, 'abc123')).toBe('task-abc123');
  });

  it('is sent exactly in UTF-8 with an ASCII copy', () => {
    expect(attachmentDisposition('quotes-abc.csv')).toBe(
      `attachment; filename="quotes-abc.csv"; filename*=UTF-8''quotes-abc.csv`,
    );
    expect(attachmentDisposition("爬虫 it's-abc.json")).toBe(
      `attachment; filename="__ it's-abc.json"; filename*=UTF-8''%E7%88%AC%E8%99%AB%20it%27s-abc.json`,
    );
  });
});
