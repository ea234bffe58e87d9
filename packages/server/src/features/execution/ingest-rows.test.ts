import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flagErrorLines } from '@crawldeck/shared';
import { errorFlags, itemRows, itemsToStore, logRows, logsToStore, notAsIs } from './ingest-rows.ts';

const frame = '  File "spider.py", line 3, in parse';
const noDedup = { collection: 'results', isDedup: false, field: '', method: 'ignore' as const };

describe('the part of a batch to store, made before the task is locked', () => {
  it('takes the rows made early when the batch starts at the stored offset, flagging its first line again', () => {
    const batch = { from: 2, lines: ['QuotaExhausted: no more pages', 'KeyError: x', 'done'] };
    const early = logRows(batch.lines, 3, '');
    expect(early.flags).toEqual([false, true, false]);
    const rows = logsToStore(batch, 2, frame, early)!;
    expect(rows.msgs).toBe(early.msgs);
    expect(rows.flags).toEqual([true, true, false]);
    expect(rows.errors).toBe(2);
    expect(early.flags).toEqual([false, true, false]);
    expect(rows).toEqual(logRows(batch.lines, 3, frame));
  });

  it('makes the rows again from what is new when the batch overlaps the stored lines, and nothing for a gap', () => {
    const batch = { from: 0, lines: ['a', frame, 'QuotaExhausted: no more pages'] };
    const early = logRows(batch.lines, 1, '');
    const rows = logsToStore(batch, 2, frame, early)!;
    expect(rows.msgs).not.toBe(early.msgs);
    expect(rows).toEqual({ first: 3, msgs: ['QuotaExhausted: no more pages'], flags: [true], errors: 1 });
    expect(logsToStore({ from: 5, lines: ['x'] }, 3, '', logRows(['x'], 6, ''))).toBeUndefined();
    expect(logsToStore(batch, 3, '', early)).toBeUndefined();
  });

  it('items: the early parse when the batch starts at the offset, a new one from what is new otherwise', () => {
    const batch = { from: 4, lines: ['{"n": 1}', 'not json', '{"n": 2}'] };
    const early = itemRows(batch.lines, noDedup);
    expect(itemsToStore(batch, 4, noDedup, early)).toEqual({ lines: 3, ...early });
    expect(itemsToStore(batch, 5, noDedup, early)).toEqual({
      lines: 2,
      rows: [{ dedup_key: null, data: '{"n": 2}' }],
      skipped: 1,
    });
    expect(itemsToStore(batch, 3, noDedup, early)).toBeUndefined();
    expect(itemsToStore(batch, 7, noDedup, early)).toBeUndefined();
  });
});

describe('items written again before they are stored', () => {
  it('are those with a number out of range or a lone half of a UTF-16 pair, as one Unicode pattern finds them', () => {
    const unicode = /[eE][+-]?\d{3}|\d{309}|\p{Cs}/u;
    const parts = [
      '{"a":1}',
      '1e400',
      '2E-308',
      '1e99',
      '"Product"',
      '9'.repeat(309),
      '9'.repeat(308),
      '😀',
      '\\ud800',
    ];
    const halves = ['\ud800', '\udbff', '\udc00', '\udfff'];
    const lines = [...parts, ...halves].flatMap((a) => [...parts, ...halves].flatMap((b) => [a + b, `${a}x${b}`]));
    let written = 0;
    for (const line of lines) {
      expect(notAsIs(line), JSON.stringify(line)).toBe(unicode.test(line));
      if (notAsIs(line)) written++;
    }
    expect(written).toBeGreaterThan(lines.length / 2);
    expect(written).toBeLessThan(lines.length);
  });
});

describe('error flags of a batch', () => {
  it("are the rules' own flags on the recorded logs of real runs, whatever line came before the batch", () => {
    const dir = new URL('../../../../shared/src/rules/fixtures/', import.meta.url);
    const logs = readdirSync(dir).map((f) => readFileSync(new URL(f, dir), 'utf8').split('\n'));
    const odd = ['ERRORS: 2', 'eRrOr', 'x.CRITICAL: y', '    raise KeyError', 'Boom', '  File "a.py"', 'Boom: x'];
    let flagged = 0;
    for (const lines of [...logs, odd, odd.map((l) => l.toUpperCase())])
      for (const before of ['', frame, '    x = 1'])
        for (let start = 0; start < lines.length; start += 7) {
          const part = lines.slice(start);
          const want = flagErrorLines(part, before);
          expect(errorFlags(part, before)).toEqual(want);
          flagged += want.filter(Boolean).length;
        }
    expect(flagged).toBeGreaterThan(100);
  });
});
