import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster();
});
afterAll(async () => {
  await m?.close();
});

describe('API tokens', () => {
  it('creates a token shown once, usable raw and with Bearer, listed without the secret, then revoked → 401', async () => {
    const created = await m.api('PUT', '/tokens', { body: { name: 'ci script' } });
    expect(created.status).toBe(200);
    const raw: string = created.body.data.token;
    expect(raw.length).toBeGreaterThanOrEqual(40);
    expect(created.body.data).toMatchObject({ name: 'ci script', expire_ts: null });

    expect((await m.api('GET', '/me', { token: raw })).body.data.username).toBe('admin');
    expect((await m.api('GET', '/users', { token: `Bearer ${raw}` })).status).toBe(200);

    const list = await m.api('GET', '/tokens');
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ _id: created.body.data._id, name: 'ci script' });
    expect(list.body.data[0].last_used_ts).not.toBeNull();
    expect(JSON.stringify(list.body)).not.toContain(raw);
    // Session tokens are not listed as API tokens.
    const stored = await m.master.store.db
      .selectFrom('tokens')
      .select(['token_hash'])
      .where('kind', '=', 'api')
      .execute();
    expect(stored.map((s) => s.token_hash)).not.toContain(raw);

    expect((await m.api('DELETE', `/tokens/${created.body.data._id}`)).status).toBe(200);
    expect((await m.api('GET', '/me', { token: raw })).status).toBe(401);
    expect((await m.api('GET', '/me', { token: `Bearer ${raw}` })).status).toBe(401);
    expect((await m.api('GET', '/tokens')).body.data).toHaveLength(0);
  });

  it('sets an expiry, refuses a blank name, and keeps users to their own tokens', async () => {
    const t = await m.api('PUT', '/tokens', { body: { name: 'week', expire_days: 7 } });
    const exp = Date.parse(t.body.data.expire_ts);
    expect(Math.abs(exp - (Date.now() + 7 * 86400_000))).toBeLessThan(60_000);
    expect((await m.api('PUT', '/tokens', { body: { name: '   ' } })).status).toBe(400);
    expect((await m.api('PUT', '/tokens', { body: {} })).status).toBe(400);

    const normal = await m.createUser('tina');
    expect((await m.api('GET', '/tokens', { token: normal })).body.data).toEqual([]);
    expect((await m.api('DELETE', `/tokens/${t.body.data._id}`, { token: normal })).status).toBe(404);
    const own = await m.api('PUT', '/tokens', { token: normal, body: { name: 'mine' } });
    expect(own.status).toBe(200);
    // A normal user's API token is still a normal user: admin calls answer 403.
    expect((await m.api('GET', '/users', { token: own.body.data.token })).status).toBe(403);
    // Logout with an API token does not delete it (logout ends sessions only).
    await m.api('POST', '/logout', { token: own.body.data.token });
    expect((await m.api('GET', '/me', { token: own.body.data.token })).status).toBe(200);
  });

  it("a token made with replace revokes only the same user's tokens of its name", async () => {
    const put = (name: string, token?: string) =>
      m.api('PUT', '/tokens', { token, body: { name, expire_days: 30, replace: true } });
    const first = await put('build box');
    const other = await m.api('PUT', '/tokens', { body: { name: 'other' } });
    const rita = await m.createUser('rita');
    const ritas = await put('build box', rita);
    const second = await put('build box');
    expect(second.status).toBe(200);
    expect((await m.api('GET', '/me', { token: first.body.data.token })).status).toBe(401);
    expect((await m.api('GET', '/me', { token: second.body.data.token })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: other.body.data.token })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: ritas.body.data.token })).status).toBe(200);
    const names = (await m.api('GET', '/tokens')).body.data.map((t: { name: string }) => t.name);
    expect(names.filter((n: string) => n === 'build box')).toHaveLength(1);
  });

  it('refuses an expired token', async () => {
    const t = await m.api('PUT', '/tokens', { body: { name: 'old', expire_days: 1 } });
    await m.master.store.db
      .updateTable('tokens')
      .set({ expire_ts: Date.now() - 1000 })
      .where('id', '=', t.body.data._id)
      .execute();
    expect((await m.api('GET', '/me', { token: t.body.data.token })).status).toBe(401);
  });
});
