import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

let m: TestMaster;
let normal: string;
beforeAll(async () => {
  m = await startTestMaster();
  normal = await m.createUser('nora');
});
afterAll(async () => {
  await m?.close();
});

const idOf = async (username: string) =>
  (await m.master.store.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow())
    .id;

describe('users administration', () => {
  it('refuses every users call to a normal user with 403 and without a token with 401', async () => {
    const admin = await idOf('admin');
    const calls: [string, string, unknown?][] = [
      ['GET', '/users'],
      ['PUT', '/users-add', { username: 'x1', password: '12345', role: 'normal' }],
      ['POST', `/users/${admin}`, { role: 'normal' }],
      ['DELETE', `/users/${admin}`],
    ];
    for (const [method, route, body] of calls) {
      const r = await m.api(method, route, { token: normal, body });
      expect(r.status, `${method} ${route}`).toBe(403);
      expect((await m.api(method, route, { token: null, body })).status).toBe(401);
    }
    expect(
      await m.master.store.db.selectFrom('users').select('id').where('username', '=', 'x1').executeTakeFirst(),
    ).toBeUndefined();
  });

  it('adds users with the username and password rules and lists them with pagination', async () => {
    const bad = [
      [{ username: '  ', password: '12345', role: 'normal' }, 'Please enter the correct username'],
      [{ username: 'u1', password: '1234', role: 'normal' }, 'password must be at least 5 characters'],
      [{ username: 'u1', password: '12345', role: 'normal', email: 'nope' }, 'e-mail format is invalid'],
    ] as const;
    for (const [body, msg] of bad) {
      const r = await m.api('PUT', '/users-add', { body });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe(msg);
    }
    expect(
      (await m.api('PUT', '/users-add', { body: { username: 'u1', password: '12345', role: 'bogus' } })).status,
    ).toBe(400);
    for (let i = 1; i <= 11; i++) {
      const r = await m.api('PUT', '/users-add', {
        body: { username: `u${i}`, password: '12345', role: i === 1 ? 'admin' : 'normal', email: `u${i}@example.com` },
      });
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toContain('scrypt');
    }
    const dup = await m.api('PUT', '/users-add', { body: { username: ' u1 ', password: '12345', role: 'normal' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('username already exists');
    const p1 = await m.api('GET', '/users', { query: { page_num: 1, page_size: 10 } });
    expect(p1.body.total).toBe(13);
    expect(p1.body.data).toHaveLength(10);
    expect(p1.body.data[0]).toMatchObject({ username: 'admin', role: 'admin' });
    const p2 = await m.api('GET', '/users', { query: { page_num: 2, page_size: 10 } });
    expect(p2.body.data.map((u: { username: string }) => u.username)).toEqual(['u9', 'u10', 'u11']);
    expect((await m.login('u1', '12345')).length).toBeGreaterThan(10);
  });

  it('changes role and e-mail; a password reset ends that user’s sessions', async () => {
    const id = await idOf('u2');
    const t1 = await m.login('u2', '12345');
    const t2 = await m.login('u2', '12345');
    const r = await m.api('POST', `/users/${id}`, { body: { role: 'admin', email: 'new@example.com' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ role: 'admin', email: 'new@example.com' });
    expect((await m.api('GET', '/me', { token: t1 })).body.data.role).toBe('admin');
    expect((await m.api('POST', `/users/${id}`, { body: { email: 'bad' } })).status).toBe(400);
    expect((await m.api('POST', `/users/${id}`, { body: { password: '123' } })).status).toBe(400);
    expect((await m.api('POST', `/users/${id}`, { body: { password: 'reset-pass' } })).status).toBe(200);
    expect((await m.api('GET', '/me', { token: t1 })).status).toBe(401);
    expect((await m.api('GET', '/me', { token: t2 })).status).toBe(401);
    await m.login('u2', 'reset-pass');
    expect((await m.api('POST', '/users/000000000000000000000000', { body: { role: 'normal' } })).status).toBe(404);
  });

  it('refuses deleting yourself (400) and the last admin (409, also no demotion); deletes others with their tokens', async () => {
    const adminId = await idOf('admin');
    const self = await m.api('DELETE', `/users/${adminId}`);
    expect(self.status).toBe(400);
    expect(self.body.error).toBe('you cannot delete your own account');
    // Make admin the only admin: demote u1 and u2.
    for (const u of ['u1', 'u2'])
      expect((await m.api('POST', `/users/${await idOf(u)}`, { body: { role: 'normal' } })).status).toBe(200);
    const demote = await m.api('POST', `/users/${adminId}`, { body: { role: 'normal' } });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toBe('the last administrator cannot be deleted or demoted');
    // Another admin tries to delete the last other admin: promote u3, u3 deletes admin → ok only while 2 admins.
    const u3 = await idOf('u3');
    await m.api('POST', `/users/${u3}`, { body: { role: 'admin' } });
    const u3Token = await m.login('u3', '12345');
    await m.api('POST', `/users/${u3}`, { body: { role: 'normal' } }); // back to one admin
    expect((await m.api('GET', '/users', { token: u3Token })).status).toBe(403);
    // Deleting a normal user removes its tokens too.
    const u4 = await idOf('u4');
    const u4Token = await m.login('u4', '12345');
    expect((await m.api('DELETE', `/users/${u4}`)).status).toBe(200);
    expect((await m.api('GET', '/me', { token: u4Token })).status).toBe(401);
    expect((await m.api('DELETE', `/users/${u4}`)).status).toBe(404);
    const lastAdmin = await m.master.store.db.selectFrom('users').select('id').where('role', '=', 'admin').execute();
    expect(lastAdmin).toHaveLength(1);
  });

  it('refuses deleting an admin when it is the last one, even by another admin’s request path', async () => {
    // Two admins: deleting one works, then the remaining one cannot be deleted by itself (self) and is the last.
    const u5 = await idOf('u5');
    await m.api('POST', `/users/${u5}`, { body: { role: 'admin' } });
    const u5Token = await m.login('u5', '12345');
    const adminId = await idOf('admin');
    expect((await m.api('DELETE', `/users/${adminId}`, { token: u5Token })).status).toBe(200);
    const again = await m.api('DELETE', `/users/${u5}`, { token: u5Token });
    expect(again.status).toBe(400);
  });

  it('never leaves zero admins when two admins demote each other at the same time', async () => {
    const a = await m.createUser('race_a', 'password1', 'admin');
    const b = await m.createUser('race_b', 'password1', 'admin');
    // Demote every other admin first so exactly race_a and race_b remain.
    for (const u of await m.master.store.db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('role', '=', 'admin')
      .execute()) {
      if (!u.username.startsWith('race_'))
        expect((await m.api('POST', `/users/${u.id}`, { token: a, body: { role: 'normal' } })).status).toBe(200);
    }
    const [ra, rb] = await Promise.all([
      m.api('POST', `/users/${await idOf('race_b')}`, { token: a, body: { role: 'normal' } }),
      m.api('POST', `/users/${await idOf('race_a')}`, { token: b, body: { role: 'normal' } }),
    ]);
    const statuses = [ra.status, rb.status].sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]); // 403 when the loser was already demoted before its own call ran
    const admins = await m.master.store.db.selectFrom('users').select('id').where('role', '=', 'admin').execute();
    expect(admins).toHaveLength(1);
  });
});
