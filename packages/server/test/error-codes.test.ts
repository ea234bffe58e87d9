import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, errorText } from '@crawldeck/shared';
import { startTestMaster, type ApiResult, type TestMaster } from './harness.ts';

let m: TestMaster;

beforeAll(async () => {
  m = await startTestMaster();
});
afterAll(async () => {
  await m?.close();
});

/** Every error answer has a catalogued code whose text, filled with the params, is the English `error`. */
function expectCoded(r: ApiResult, status: number, code: string, params?: Record<string, unknown>) {
  expect(r.status).toBe(status);
  const body = r.body as ApiResult['body'] & { code?: string; params?: Record<string, string | number> };
  expect(body).toMatchObject({ status: 'error', code });
  expect(Object.keys(ERROR_CATALOGUE)).toContain(body.code);
  if (params) expect(body.params).toMatchObject(params);
  expect(body.error).toBe(errorText(body.code as keyof typeof ERROR_CATALOGUE, body.params));
  expect(body.message).toBe(body.error);
}

describe('error answers carry a stable code', () => {
  it('sign-in and access', async () => {
    expectCoded(await m.api('GET', '/spiders', { token: null }), 401, 'auth.unauthorized');
    const user = await m.createUser('codes-user', 'codes-pass-1');
    expectCoded(await m.api('GET', '/webhooks', { token: user }), 403, 'auth.admin_only');
    expectCoded(
      await m.api('POST', '/login', { token: null, body: { username: 'codes-user', password: 'wrong-pass' } }),
      401,
      'auth.bad_credentials',
    );
  });

  it('a union of constants names the field and the allowed values, never the validator wording', async () => {
    const r = await m.api('PUT', '/webhooks', { body: { name: 'x', url: 'http://127.0.0.1:9/h', events: ['bogus'] } });
    expectCoded(r, 400, 'validation.enum', { where: 'body', field: 'events.0' });
    expect(r.body.error).toContain('task_finished');
    expect(r.body.error).not.toMatch(/equal to constant|must NOT|must match/);
  });

  it('missing, mistyped, too long and non-finite fields each have their code', async () => {
    expectCoded(await m.api('POST', '/login', { token: null, body: { password: 'x' } }), 400, 'validation.required', {
      where: 'body',
      field: 'username',
    });
    const long = await m.api('PUT', '/projects', { body: { name: 'x'.repeat(5000) } });
    expectCoded(long, 400, 'validation.max_length', { field: 'name' });
    expect(long.body.error).toMatch(/^invalid body field "name": must be at most \d+ characters long$/);
    expectCoded(await m.api('GET', '/tasks', { query: { page_size: 'many' } }), 400, 'validation.type', {
      where: 'query',
      field: 'page_size',
    });
    expectCoded(await m.api('GET', '/tasks', { query: { page_num: 'Infinity' } }), 400, 'validation.finite', {
      where: 'query',
      field: 'page_num',
    });
  });

  it('known answers of the features have their own code; others the code of their status with the reason', async () => {
    await m.api('POST', '/setting', { body: { allow_signup: 'Y' } });
    expect(
      (await m.api('PUT', '/users', { token: null, body: { username: 'twice', password: 'password-x' } })).status,
    ).toBe(200);
    expectCoded(
      await m.api('PUT', '/users', { token: null, body: { username: 'twice', password: 'password-x' } }),
      409,
      'user.exists',
    );
    expectCoded(await m.api('GET', '/spiders/0123456789abcdef01234567'), 404, 'not_found.spider');
    expectCoded(await m.api('GET', '/no-such-thing'), 404, 'route.not_found', {
      method: 'GET',
      path: '/api/no-such-thing',
    });
    const generic = await m.api('POST', '/spiders/0123456789abcdef01234567/git/sync');
    expect(generic.status).toBeGreaterThanOrEqual(400);
    expect(generic.body).toHaveProperty('code');
  });
});
