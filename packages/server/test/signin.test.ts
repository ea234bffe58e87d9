import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from './harness.ts';

/** A JSON call from a chosen loopback address, so one test can act as an attacker and as the real owner. */
function callFrom(
  m: TestMaster,
  from: string,
  method: string,
  route: string,
  body?: unknown,
  token?: string,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> {
  const url = new URL(`/api${route}`, m.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        localAddress: from,
        headers: {
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: token } : {}),
          ...extraHeaders,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || 'null'), headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ loginFreeFailures: 3, signupsPerHour: 3 });
});
afterAll(async () => {
  await m?.close();
});

describe('sign-in hardening', () => {
  it('slows an attacker per username and address while the owner still signs in from another address', async () => {
    await m.createUser('owner1', 'owner-pass');
    const attempt = (from: string, password: string) =>
      callFrom(m, from, 'POST', '/login', { username: 'owner1', password });
    for (let i = 0; i < 3; i++) expect((await attempt('127.0.0.1', 'guess-' + i)).status).toBe(401);
    // The free failures are spent: the next attempt from there must wait, even with the right password.
    const held = await attempt('127.0.0.1', 'owner-pass');
    expect(held.status).toBe(429);
    expect(held.body.error).toMatch(/too many failed sign-in attempts; try again in \d+ s/);
    expect(Number(held.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The owner, elsewhere, is not held up at all.
    const owner = await attempt('127.0.0.2', 'owner-pass');
    expect(owner.status).toBe(200);
    expect(typeof owner.body.data).toBe('string');
  });

  it('refuses anonymous sign-up on a fresh master until an admin opens it', async () => {
    expect((await m.api('GET', '/setting', { token: null })).body.data.allow_signup).toBe('N');
    expect((await m.api('GET', '/system/setting')).body.data.allow_signup).toBe('N');
    const closed = await callFrom(m, '127.0.0.6', 'PUT', '/users', { username: 'early1', password: 'pass-word' });
    expect(closed.status).toBe(403);
    expect(closed.body.error).toBe('sign-up is closed; ask an administrator for an account');
    expect(
      await m.master.store.db.selectFrom('users').select('id').where('username', '=', 'early1').executeTakeFirst(),
    ).toBeUndefined();
    expect((await m.api('POST', '/setting', { body: { allow_signup: 'Y' } })).body.data.allow_signup).toBe('Y');
    expect((await m.api('GET', '/setting', { token: null })).body.data.allow_signup).toBe('Y');
    expect(
      (await callFrom(m, '127.0.0.6', 'PUT', '/users', { username: 'early1', password: 'pass-word' })).status,
    ).toBe(200);
  });

  it('signs up at most the configured number of times per address per hour', async () => {
    for (let i = 0; i < 3; i++)
      expect(
        (await callFrom(m, '127.0.0.3', 'PUT', '/users', { username: `su${i}`, password: 'pass-word' })).status,
      ).toBe(200);
    const over = await callFrom(m, '127.0.0.3', 'PUT', '/users', { username: 'su3', password: 'pass-word' });
    expect(over.status).toBe(429);
    expect(over.body.error).toMatch(/too many sign-ups from this address/);
    expect(
      await m.master.store.db.selectFrom('users').select('id').where('username', '=', 'su3').executeTakeFirst(),
    ).toBeUndefined();
    expect((await callFrom(m, '127.0.0.4', 'PUT', '/users', { username: 'su3', password: 'pass-word' })).status).toBe(
      200,
    );
  });

  it('lets an admin close sign-up; the public setting tells the console', async () => {
    const normal = await m.createUser('plain1', 'plain-pass');
    expect((await m.api('POST', '/setting', { token: normal, body: { allow_signup: 'N' } })).status).toBe(403);
    expect((await m.api('POST', '/setting', { body: { allow_signup: 'N' } })).body.data.allow_signup).toBe('N');
    expect((await m.api('GET', '/system/setting')).body.data.allow_signup).toBe('N');
    expect((await m.api('GET', '/setting', { token: null })).body.data.allow_signup).toBe('N');
    const closed = await callFrom(m, '127.0.0.5', 'PUT', '/users', { username: 'late1', password: 'pass-word' });
    expect(closed.status).toBe(403);
    expect(closed.body.error).toBe('sign-up is closed; ask an administrator for an account');
    // Administrators still add users.
    expect((await m.api('PUT', '/users-add', { body: { username: 'late1', password: 'pass-word' } })).status).toBe(200);
    await m.api('POST', '/setting', { body: { allow_signup: 'Y' } });
    expect((await m.api('GET', '/setting', { token: null })).body.data.allow_signup).toBe('Y');
    expect((await callFrom(m, '127.0.0.5', 'PUT', '/users', { username: 'late2', password: 'pass-word' })).status).toBe(
      200,
    );
  });

  it('needs the current password to change it, and revokes other sessions and (when asked) API tokens', async () => {
    const session = await m.createUser('chg1', 'first-pass');
    const other = await m.login('chg1', 'first-pass');
    const apiToken = (await m.api('PUT', '/tokens', { token: session, body: { name: 'script' } })).body.data
      .token as string;
    const missing = await m.api('POST', '/me', { token: session, body: { password: 'second-pass' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('current_password is required to change the password');
    const wrong = await m.api('POST', '/me', {
      token: apiToken,
      body: { password: 'second-pass', current_password: 'not-it' },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toBe('current password is incorrect');
    await m.login('chg1', 'first-pass');

    expect(
      (
        await m.api('POST', '/me', {
          token: session,
          body: { password: 'second-pass', current_password: 'first-pass' },
        })
      ).status,
    ).toBe(200);
    expect((await m.api('GET', '/me', { token: other })).status).toBe(401);
    expect((await m.api('GET', '/me', { token: apiToken })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: session })).status).toBe(200);

    const r = await m.api('POST', '/me', {
      token: session,
      body: { password: 'third-pass', current_password: 'second-pass', revoke_tokens: true },
    });
    expect(r.status).toBe(200);
    expect((await m.api('GET', '/me', { token: apiToken })).status).toBe(401);
    expect((await m.api('GET', '/me', { token: session })).status).toBe(200);
    await m.login('chg1', 'third-pass');
  });

  it("an admin's reset ends the user's sessions and, when asked, its API tokens", async () => {
    const session = await m.createUser('rst1', 'first-pass');
    const id = (await m.api('GET', '/me', { token: session })).body.data._id as string;
    const apiToken = (await m.api('PUT', '/tokens', { token: session, body: { name: 'script' } })).body.data
      .token as string;
    expect((await m.api('POST', `/users/${id}`, { body: { password: 'reset-pass' } })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: session })).status).toBe(401);
    expect((await m.api('GET', '/me', { token: apiToken })).status).toBe(200);
    expect(
      (await m.api('POST', `/users/${id}`, { body: { password: 'reset-pass2', revoke_tokens: true } })).status,
    ).toBe(200);
    expect((await m.api('GET', '/me', { token: apiToken })).status).toBe(401);
    await m.login('rst1', 'reset-pass2');
  });
});

describe('sign-in behind a reverse proxy', () => {
  let p: TestMaster;
  beforeAll(async () => {
    // The proxy sits on 127.0.0.1; the default budget of free failures.
    p = await startTestMaster({ trustedProxies: ['127.0.0.1'] });
  });
  afterAll(async () => {
    await p?.close();
  });
  const viaProxy = (client: string, password: string) =>
    callFrom(p, '127.0.0.1', 'POST', '/login', { username: 'admin', password }, undefined, {
      'x-forwarded-for': client,
    });

  it('50 bad sign-ins from someone behind the same proxy do not keep the admin out; only a listed proxy names the client', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 50; i++) statuses.add((await viaProxy('203.0.113.50', `guess-${i}`)).status);
    // The attacker is slowed...
    expect(statuses).toEqual(new Set([401, 429]));
    expect((await viaProxy('203.0.113.50', ADMIN_PASSWORD)).status).toBe(429);
    // ...and the admin, another client of the same proxy, signs in at once.
    const admin = await viaProxy('198.51.100.7', ADMIN_PASSWORD);
    expect(admin.status).toBe(200);
    expect(typeof admin.body.data).toBe('string');

    // 127.0.0.3 is not a listed proxy: it cannot escape its slowdown by naming a new address in each request.
    await p.createUser('owner2', 'owner-pass');
    const attempt = (forwarded: string, password: string) =>
      callFrom(p, '127.0.0.3', 'POST', '/login', { username: 'owner2', password }, undefined, {
        'x-forwarded-for': forwarded,
      });
    for (let i = 0; i < 5; i++) expect((await attempt(`198.51.100.${i}`, 'guess-' + i)).status).toBe(401);
    expect((await attempt('198.51.100.99', 'owner-pass')).status).toBe(429);
    // Through the proxy the same owner is a client of its own.
    const owner = await callFrom(
      p,
      '127.0.0.1',
      'POST',
      '/login',
      { username: 'owner2', password: 'owner-pass' },
      undefined,
      {
        'x-forwarded-for': '198.51.100.99',
      },
    );
    expect(owner.status).toBe(200);
  });
});

describe('sign-in timing', () => {
  let t: TestMaster;
  beforeAll(async () => {
    // No throttling here: the test fails many sign-ins on purpose.
    t = await startTestMaster({ loginFreeFailures: 100_000 });
    await t.createUser('known1', 'known-pass');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers an unknown username as slowly as a known one with a wrong password', async () => {
    const time = async (username: string) => {
      const start = performance.now();
      const r = await t.api('POST', '/login', { token: null, body: { username, password: 'wrong-pass' } });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('username or password is incorrect');
      return performance.now() - start;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved so load on the machine hits both series alike.
    for (let i = 0; i < 15; i++) {
      known.push(await time('known1'));
      unknown.push(await time(`nobody-${i}`));
    }
    const ratio = median(unknown) / median(known);
    // Without the dummy hash the unknown user answered about 15 times faster; allow wide noise either way.
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});
