import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster();
});
afterAll(async () => {
  await m?.close();
});

describe('session and general calls', () => {
  it('signs in with a trimmed username and answers /me with the envelope, never the hash', async () => {
    const r = await m.api('POST', '/login', { token: null, body: { username: '  admin ', password: ADMIN_PASSWORD } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', message: 'success' });
    expect(typeof r.body.data).toBe('string');
    const me = await m.api('GET', '/me', { token: r.body.data });
    expect(me.body.data).toMatchObject({ username: 'admin', role: 'admin', setting: { max_error_log: 1000 } });
    expect(JSON.stringify(me.body)).not.toContain('scrypt');
  });

  it('accepts raw and Bearer tokens and refuses everything else with 401', async () => {
    expect((await m.api('GET', '/me', { token: m.adminToken })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: `Bearer ${m.adminToken}` })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: null })).status).toBe(401);
    expect((await m.api('GET', '/me', { token: 'not-a-token' })).status).toBe(401);
    expect((await m.api('GET', '/docs', { token: null })).status).toBe(401);
    expect((await m.api('PUT', '/actions', { token: null, body: { type: 'visit' } })).status).toBe(401);
  });

  it('rejects a wrong password without saying which part was wrong', async () => {
    const r = await m.api('POST', '/login', { token: null, body: { username: 'admin', password: 'nope-nope' } });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('username or password is incorrect');
  });

  it('refuses bad sign-ups with the messages the console shows and stores nothing', async () => {
    await m.api('POST', '/setting', { body: { allow_signup: 'Y' } });
    const short = await m.api('PUT', '/users', { token: null, body: { username: 'shorty', password: '1234' } });
    expect(short.status).toBe(400);
    expect(short.body.error).toMatch(/at least 5/);
    const long = await m.api('PUT', '/users', { token: null, body: { username: 'x'.repeat(101), password: '12345' } });
    expect(long.status).toBe(400);
    expect(long.body.error).toBe('Please enter the correct username');
    const blank = await m.api('PUT', '/users', { token: null, body: { username: '   ', password: '12345' } });
    expect(blank.status).toBe(400);
    expect((await m.api('PUT', '/users', { token: null, body: { username: 'carol', password: '12345' } })).status).toBe(
      200,
    );
    const dup = await m.api('PUT', '/users', { token: null, body: { username: ' carol ', password: '12345' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('username already exists');
    const users = await m.master.store.db.selectFrom('users').select('username').execute();
    expect(users.map((u) => u.username).sort()).toEqual(['admin', 'carol']);
    expect(
      (await m.api('PUT', '/users', { token: null, body: { username: 'x'.repeat(100), password: '12345' } })).status,
    ).toBe(200);
  });

  it('validates bodies with a clear 400', async () => {
    const r = await m.api('POST', '/login', { token: null, body: { username: 'admin' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/password/);
  });

  it('changes own password and settings; other sessions end, this one stays', async () => {
    const t1 = await m.createUser('dave', 'first-pass');
    const t2 = await m.login('dave', 'first-pass');
    const upd = await m.api('POST', '/me', {
      token: t1,
      body: { password: 'second-pass', current_password: 'first-pass', setting: { max_error_log: 50 } },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.data.setting.max_error_log).toBe(50);
    expect((await m.api('GET', '/me', { token: t1 })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: t2 })).status).toBe(401);
    await m.login('dave', 'second-pass');
    expect((await m.api('POST', '/me', { token: t1, body: { password: '123' } })).status).toBe(400);
  });

  it('revokes the token on logout', async () => {
    const t = await m.login('admin', ADMIN_PASSWORD);
    expect((await m.api('POST', '/logout', { token: t })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: t })).status).toBe(401);
  });

  it('slows failed logins per username and address', async () => {
    await m.createUser('erin', 'erin-pass');
    for (let i = 0; i < 6; i++)
      await m.api('POST', '/login', { token: null, body: { username: 'erin', password: 'wrong-pass' } });
    const r = await m.api('POST', '/login', { token: null, body: { username: 'erin', password: 'erin-pass' } });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeTruthy();
  });

  it('serves version, public setting, docs map and the action collector', async () => {
    expect((await m.api('GET', '/version', { token: null })).body.data).toBe('4.0.0');
    expect((await m.api('GET', '/setting', { token: null })).body.data.enable_tutorial).toMatch(/^[YN]$/);
    const docs = await m.api('GET', '/docs');
    const map = JSON.parse(docs.body.data.string) as Record<string, { title: string; url: string }>;
    expect(map['/spider/']).toMatchObject({ title: 'Spider' });
    expect((await m.api('PUT', '/actions', { body: { type: 'visit' } })).status).toBe(200);
    const summary = await m.api('GET', '/actions/summary');
    expect(summary.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'visit', count: 1 })]));
    const normal = await m.createUser('frank');
    expect((await m.api('GET', '/actions/summary', { token: normal })).status).toBe(403);
  });

  it('answers "not configured" for the latest release when no source is configured, JSON 404 for unknown API routes', async () => {
    const rel = await m.api('GET', '/releases/latest');
    expect(rel.status).toBe(200);
    expect(rel.body.data).toEqual({ configured: false });
    const unknown = await m.api('GET', '/no-such-route');
    expect(unknown.status).toBe(404);
  });
});
