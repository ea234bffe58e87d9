import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_BATCH_LINES, MAX_LINE_BYTES, lineText } from './spool.ts';
import { Shipper, decodeLines } from './shipper.ts';
import type { ShipBatch } from '@crawldeck/shared';
import { resolveCommand } from './runner.ts';

/** Ingest as the master's store does it: the part below what it has is skipped, a gap is refused. */
function storeLikeTheMaster(stored: string[], b: ShipBatch): { acked: number } {
  if (b.from <= stored.length) stored.push(...b.lines.slice(stored.length - b.from));
  return { acked: stored.length };
}

/** Ships `content` (written in the given pieces while shipping) and returns the lines the master got. */
async function ship(pieces: (string | Buffer)[], maxBatchBytes?: number): Promise<string[]> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'shipper-')), 'log.txt');
  writeFileSync(file, '');
  const got: string[] = [];
  const state = { bytes: 0, lines: 0 };
  const shipper = new Shipper(
    file,
    state,
    async (b) => storeLikeTheMaster(got, b),
    () => undefined,
    () => undefined,
    maxBatchBytes,
  );
  for (const p of pieces) {
    appendFileSync(file, p);
    shipper.kick();
  }
  await shipper.drain();
  expect(state.bytes).toBe(statSync(file).size);
  return got;
}

describe('spool lines', () => {
  it('splits at newlines across writes, keeps empty lines, drops \\r, ships a trailing partial line at the end', async () => {
    expect(await ship(['a\nb', 'c\r\n\n', 'tail'])).toEqual(['a', 'bc', '', 'tail']);
    expect(await ship(['x\n'])).toEqual(['x']);
  });

  it('cuts a very long line with a marker and resumes at the next line, also when it is longer than a batch', async () => {
    for (const batch of [undefined, 100_000]) {
      const long = 'y'.repeat(MAX_LINE_BYTES * 3);
      const out = await ship([long.slice(0, 100000), long.slice(100000), '\nnext\n'], batch);
      expect(out).toHaveLength(2);
      expect(out[0].startsWith('y'.repeat(MAX_LINE_BYTES))).toBe(true);
      expect(out[0]).toMatch(/\[line cut at 65536 bytes\]$/);
      expect(out[1]).toBe('next');
    }
  });

  it('reads a batch decoded at once exactly as line by line: malformed UTF-8, carriage returns, long lines', () => {
    const pieces = [
      Buffer.from('plain ascii\n'),
      Buffer.from('caf\u00e9 \u{1F600} \u6f22\u5b57\r\n'),
      Buffer.from([0x61, 0xe2, 0x82, 0x0a]),
      Buffer.from([0xf0, 0x9f, 0x0a, 0xff, 0xfe, 0x62, 0x0d, 0x0d, 0x0a]),
      Buffer.from('\r\n\n'),
      Buffer.from('\u00e9'.repeat(MAX_LINE_BYTES / 2 + 7) + '\r\n'),
      Buffer.from('z'.repeat(MAX_LINE_BYTES) + '\n'),
      Buffer.from([0xe2, 0x82]),
    ];
    const data = Buffer.concat(pieces);
    const sizes: number[] = [];
    const oneByOne: string[] = [];
    for (let start = 0; start < data.length;) {
      const nl = data.indexOf(10, start);
      const end = nl === -1 ? data.length : nl;
      oneByOne.push(lineText(data.subarray(start, end)));
      sizes.push((nl === -1 ? end : end + 1) - start);
      start += sizes.at(-1)!;
    }
    expect(oneByOne).toHaveLength(10);
    expect(decodeLines(data, sizes)).toEqual(oneByOne);
    const whole = data.subarray(0, data.length - 2);
    expect(decodeLines(whole, sizes.slice(0, -1))).toEqual(oneByOne.slice(0, -1));
  });
});

describe('resolveCommand', () => {
  it('runs python/python3/scrapy with the node interpreter and leaves other commands alone', () => {
    expect(resolveCommand('python main.py -x', '/usr/bin/python3')).toBe('/usr/bin/python3 main.py -x');
    expect(resolveCommand('python3 main.py', '/opt/py 3/bin/python')).toBe("'/opt/py 3/bin/python' main.py");
    expect(resolveCommand('scrapy crawl s', '/usr/bin/python3')).toBe('/usr/bin/python3 -m scrapy crawl s');
    expect(resolveCommand('pythonx run', '/usr/bin/python3')).toBe('pythonx run');
    expect(resolveCommand('node main.js', '/usr/bin/python3')).toBe('node main.js');
  });
});

describe('Shipper', () => {
  it('ships a spool file in capped batches from the acknowledged offset, retrying failures, until drained', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'shipper-')), 'log.txt');
    const n = MAX_BATCH_LINES * 2 + 5;
    writeFileSync(file, Array.from({ length: n }, (_, i) => (i % 3 ? '' : `l${i}`)).join('\n') + '\ntail-no-newline');
    const got: string[] = [];
    let calls = 0;
    const shipper = new Shipper(
      file,
      { bytes: 0, lines: 0 },
      async (b) => {
        calls++;
        if (calls === 2) throw new Error('network down');
        expect(b.lines.length).toBeLessThanOrEqual(MAX_BATCH_LINES);
        return storeLikeTheMaster(got, b);
      },
      () => undefined,
      () => undefined,
    );
    await shipper.drain();
    expect(got).toHaveLength(n + 1);
    expect(got[3]).toBe('l3');
    expect(got[n]).toBe('tail-no-newline');
  });
});

describe('Shipper after a lost answer', () => {
  it('skips the lines the master already stored (node killed between the master storing a batch and saving its offsets)', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'shipper-')), 'log.txt');
    writeFileSync(file, Array.from({ length: 10 }, (_, i) => `l${i}\n`).join(''));
    const stored = ['l0', 'l1', 'l2', 'l3'];
    const state = { bytes: 6, lines: 2 };
    const shipper = new Shipper(
      file,
      state,
      async (b) => storeLikeTheMaster(stored, b),
      () => undefined,
      () => undefined,
    );
    await shipper.drain();
    expect(stored).toEqual(Array.from({ length: 10 }, (_, i) => `l${i}`));
    expect(state).toEqual({ bytes: 30, lines: 10 });
  });
});

describe('Shipper with several batches in flight', () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
  function spool(): string {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'shipper-')), 'log.txt');
    writeFileSync(file, lines.join('\n') + '\n');
    return file;
  }
  const delay = () => new Promise((r) => setTimeout(r, Math.floor(Math.random() * 5)));

  it('keeps several batches in flight and stores every line once when answers come out of order', async () => {
    const stored: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const state = { bytes: 0, lines: 0 };
    const shipper = new Shipper(
      spool(),
      state,
      async (b) => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        // Like the master: a batch whose predecessor is not stored yet waits for it.
        while (b.from > stored.length) await delay();
        await delay();
        inFlight--;
        return storeLikeTheMaster(stored, b);
      },
      () => undefined,
      () => undefined,
      4096,
    );
    await shipper.drain();
    expect(maxInFlight).toBe(4);
    expect(stored).toEqual(lines);
    expect(state.lines).toBe(lines.length);
  });

  it('ships again from the acknowledged offset when the master refuses a gap or drops a batch', async () => {
    const stored: string[] = [];
    let calls = 0;
    const state = { bytes: 0, lines: 0 };
    const shipper = new Shipper(
      spool(),
      state,
      async (b) => {
        await delay();
        if (++calls % 7 === 0) throw new Error('connection reset');
        // No waiting here: a batch that arrives before its predecessor is answered with the stored offset.
        return storeLikeTheMaster(stored, b);
      },
      () => undefined,
      () => undefined,
      4096,
    );
    await shipper.drain();
    expect(stored).toEqual(lines);
    expect(state.lines).toBe(lines.length);
  });
});
