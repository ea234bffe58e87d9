import { describe, expect, it } from 'vitest';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ShipBatch } from '@crawldeck/shared';
import { Shipper } from './shipper.ts';
import { ItemLimit } from './item-limit.ts';

const KIB = 1024;

/** An items file of JSON lines of these sizes (bytes without the newline). */
function itemsFile(sizes: number[]): { file: string; lines: string[] } {
  const lines = sizes.map((size, n) => {
    const base = JSON.stringify({ n, pad: '' });
    return JSON.stringify({ n, pad: 'x'.repeat(size - base.length) });
  });
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'items-')), 'items.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  return { file, lines };
}

/** Ships the file with the item rule; what the master got, the refusals heard and the most lines in flight. */
async function shipItems(file: string, maxBytes: number, failEvery = 0) {
  const stored: string[] = [];
  const refusals: [number, number][] = [];
  let inFlight = 0;
  let bigInFlight = 0;
  let mostBig = 0;
  let calls = 0;
  const state = { bytes: 0, lines: 0 };
  const post = async (b: ShipBatch) => {
    const big = b.lines.some((l) => l.length > 64 * KIB);
    inFlight++;
    if (big) mostBig = Math.max(mostBig, ++bigInFlight);
    await new Promise((r) => setImmediate(r));
    inFlight--;
    if (big) bigInFlight--;
    if (failEvery && ++calls % failEvery === 0) throw new Error('connection reset');
    if (b.from <= stored.length) stored.push(...b.lines.slice(stored.length - b.from));
    return { acked: stored.length };
  };
  const rule = { maxBytes, refused: (line: number, bytes: number) => void refusals.push([line, bytes]) };
  const shipper = new Shipper(
    file,
    state,
    post,
    () => undefined,
    () => undefined,
    16 * KIB,
    4,
    rule,
  );
  await shipper.drain();
  expect(state.bytes).toBe(statSync(file).size);
  expect(inFlight).toBe(0);
  return { stored, refusals, mostBig };
}

describe('Shipper of items', () => {
  it('ships items longer than a batch whole, one at a time, and refuses one over the limit with an empty line', async () => {
    const sizes = [100, 64 * KIB, 100, 64 * KIB + 1, 70 * KIB, 100, 200 * KIB, 200 * KIB + 1, 100];
    const { file, lines } = itemsFile(sizes);
    const { stored, refusals, mostBig } = await shipItems(file, 200 * KIB);
    expect(stored).toEqual(lines.map((l, n) => (n === 7 ? '' : l)));
    expect(refusals).toEqual([[7, 200 * KIB + 1]]);
    expect(mostBig).toBe(1);
  });

  it('stores every item once when batches fail, and hears of every refused one', async () => {
    const sizes = Array.from({ length: 60 }, (_, n) => (n % 10 === 3 ? 40 * KIB : n % 10 === 7 ? 90 * KIB : 300));
    const { file, lines } = itemsFile(sizes);
    const { stored, refusals } = await shipItems(file, 64 * KIB, 3);
    expect(stored).toEqual(lines.map((l, n) => (n % 10 === 7 ? '' : l)));
    expect(new Set(refusals.map(([n]) => n))).toEqual(new Set([7, 17, 27, 37, 47, 57]));
  });
});

describe('ItemLimit', () => {
  it('counts and tells each refused item once, also after a restart from its saved state', () => {
    const notes: string[] = [];
    let saves = 0;
    const limit = { bytes: 1024 * 1024, source: 'CRAWLDECK_MAX_ITEM_MB on the master' };
    const a = new ItemLimit(
      limit,
      undefined,
      (l) => notes.push(l),
      () => saves++,
    );
    a.refused(4, 2 * 1024 * 1024);
    a.refused(4, 2 * 1024 * 1024);
    expect(notes).toEqual([
      'ERROR: item 5 refused, not stored: its 2.0 MiB (2097152 bytes) are over the item limit of 1.0 MiB ' +
        '(1048576 bytes, set by CRAWLDECK_MAX_ITEM_MB on the master)',
    ]);
    expect(saves).toBe(1);
    const b = new ItemLimit(
      limit,
      { ...a.state },
      (l) => notes.push(l),
      () => saves++,
    );
    b.refused(4, 2 * 1024 * 1024);
    b.refused(9, 1024 * 1024 + 1);
    expect(notes).toHaveLength(2);
    expect(b.withSummary('')).toBe('2 items were refused for being over the item limit of 1.0 MiB (largest 2.0 MiB)');
    expect(b.withSummary('exit code 1')).toBe(`exit code 1; ${b.summary()}`);
    expect(
      new ItemLimit(
        limit,
        undefined,
        () => undefined,
        () => undefined,
      ).withSummary(''),
    ).toBe('');
  });
});
