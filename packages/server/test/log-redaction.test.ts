import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
const lines: string[] = [];
beforeAll(async () => {
  const logStream = new PassThrough();
  logStream.setEncoding('utf8');
  let rest = '';
  logStream.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
  });
  m = await startTestMaster({ logLevel: 'info', logRequests: true, logStream });
});
afterAll(async () => {
  await m?.close();
});

describe('request logs', () => {
  it('never carry a token, from the query string or the Authorization header', async () => {
    const token = m.adminToken;
    const before = lines.length;
    const stream = await fetch(
      `${m.url}/api/tasks/000000000000000000000000/stream?token=${encodeURIComponent(token)}&from=0`,
    );
    expect(stream.status).toBe(404);
    await stream.text();
    expect((await m.api('GET', '/me', { token: `Bearer ${token}` })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: 'not-a-token-but-secret-looking' })).status).toBe(401);
    // Both requests are logged once their reply is sent.
    await expect
      .poll(() => lines.slice(before).filter((l) => l.includes('"request completed"')).length)
      .toBeGreaterThanOrEqual(3);
    const logged = lines.slice(before);
    expect(logged.some((l) => l.includes('/stream?token=[redacted]&from=0'))).toBe(true);
    for (const l of logged) {
      expect(l).not.toContain(token);
      expect(l).not.toContain('not-a-token-but-secret-looking');
      expect(l.toLowerCase()).not.toContain('"authorization"');
    }
  });

  it('are at debug level unless asked for: a default master logs no line per request at info', async () => {
    await m.restart({ logRequests: false });
    const before = lines.length;
    for (let i = 0; i < 5; i++) expect((await m.api('GET', '/version')).status).toBe(200);
    // A line logged after the requests shows that everything they would have logged is in.
    m.master.app.log.info('marker after the requests');
    await expect.poll(() => lines.slice(before).some((l) => l.includes('marker after the requests'))).toBe(true);
    expect(
      lines.slice(before).filter((l) => l.includes('request completed') || l.includes('incoming request')),
    ).toEqual([]);
  });
});
