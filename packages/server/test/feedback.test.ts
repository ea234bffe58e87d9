import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
let normal: string;
beforeAll(async () => {
  m = await startTestMaster();
  normal = await m.createUser('fiona');
});
afterAll(async () => {
  await m?.close();
});

describe('feedback', () => {
  it('requires e-mail (valid), chat-app account and content, storing nothing otherwise', async () => {
    const good = { email: 'fiona@example.com', chat_account: 'fiona_wx', content: 'The log view is great.' };
    const cases: [Record<string, string>, string][] = [
      [{ ...good, email: '' }, 'e-mail is required'],
      [{ ...good, email: 'not-an-email' }, 'e-mail format is invalid'],
      [{ ...good, chat_account: '  ' }, 'chat-app account is required'],
      [{ ...good, content: '' }, 'content is required'],
    ];
    for (const [body, msg] of cases) {
      const r = await m.api('PUT', '/feedback', { token: normal, body });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe(msg);
    }
    const { content: _omit, ...missing } = good;
    expect((await m.api('PUT', '/feedback', { token: normal, body: missing })).status).toBe(400);
    expect(await m.master.store.db.selectFrom('feedback').selectAll().execute()).toEqual([]);
    expect((await m.api('PUT', '/feedback', { token: null, body: good })).status).toBe(401);
    expect((await m.api('PUT', '/feedback', { token: normal, body: good })).status).toBe(200);
  });

  it('lists feedback to admins only, newest first with the sender', async () => {
    await m.api('PUT', '/feedback', { body: { email: 'admin@example.com', chat_account: 'adm', content: 'second' } });
    expect((await m.api('GET', '/feedback', { token: normal })).status).toBe(403);
    const r = await m.api('GET', '/feedback', { query: { page_num: 1, page_size: 10 } });
    expect(r.body.total).toBe(2);
    expect(r.body.data.map((f: { content: string }) => f.content)).toEqual(['second', 'The log view is great.']);
    expect(r.body.data[1]).toMatchObject({ username: 'fiona', email: 'fiona@example.com', chat_account: 'fiona_wx' });
  });
});
