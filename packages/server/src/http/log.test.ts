import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { MasterConfig } from '../config.ts';
import { loggerOptions } from './log.ts';

/** One request line through the options the master gives Fastify (which passes `stream` to pino). */
async function logOnce(logPretty: boolean): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  const config = { logLevel: 'info', logPretty, logStream: out } as unknown as MasterConfig;
  const { stream, ...options } = loggerOptions(config) as ReturnType<typeof loggerOptions> & {
    stream: NodeJS.WritableStream;
  };
  const log = pino(options, stream);
  log.info({ req: { method: 'GET', url: '/api/tasks?token=secret' } }, 'request completed');
  await new Promise((r) => setImmediate(r));
  return text;
}

describe('master log format', () => {
  it('is one JSON object per line for collectors', async () => {
    const line = JSON.parse((await logOnce(false)).trim()) as { level: number; msg: string };
    expect(line).toMatchObject({ level: 30, msg: 'request completed' });
  });

  it('is a readable line with time, level and message for a person, credentials still hidden', async () => {
    const text = await logOnce(true);
    expect(() => JSON.parse(text)).toThrow();
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed/);
    expect(text).not.toContain('secret');
  });
});
