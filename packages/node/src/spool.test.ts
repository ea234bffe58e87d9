import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_LINE_BYTES } from './spool.ts';
import { resolveCommand } from './runner.ts';

function split(chunks: (string | Buffer)[]): string[] {
  const out: string[] = [];
  const s = new LineSplitter((l) => out.push(l));
  for (const c of chunks) s.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  s.end();
  return out;
}

describe('LineSplitter', () => {
  it('splits across chunks, keeps empty lines, drops \\r, emits a trailing partial line at the end', () => {
    expect(split(['a\nb', 'c\r\n\n', 'tail'])).toEqual(['a', 'bc', '', 'tail']);
    expect(split(['x\n'])).toEqual(['x']);
  });

  it('cuts a very long line with a marker and resumes at the next line', () => {
    const long = 'y'.repeat(MAX_LINE_BYTES * 3);
    const out = split([long.slice(0, 100000), long.slice(100000), '\nnext\n']);
    expect(out).toHaveLength(2);
    expect(out[0].startsWith('y'.repeat(MAX_LINE_BYTES))).toBe(true);
    expect(out[0]).toMatch(/\[line cut at 65536 bytes\]$/);
    expect(out[1]).toBe('next');
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
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { Shipper, MAX_BATCH_LINES } = await import('./spool.ts');
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
        expect(b.from).toBe(got.length);
        expect(b.lines.length).toBeLessThanOrEqual(MAX_BATCH_LINES);
        got.push(...b.lines);
        return { acked: got.length };
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
