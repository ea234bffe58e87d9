import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { counts } from './spider-helpers.ts';
import { listVariablesAsEnv } from '../src/features/variables/variables.store.ts';

let m: TestMaster;
let bob: string;
beforeAll(async () => {
  m = await startTestMaster();
  bob = await m.createUser('bob');
});
afterAll(async () => {
  await m?.close();
});

describe('global variables', () => {
  it('creates, lists, updates and deletes', async () => {
    const r = await m.api('PUT', '/variable', { body: { key: 'API_KEY', value: 'abc', remark: 'the key' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ key: 'API_KEY', value: 'abc', remark: 'the key' });
    const id = r.body.data._id;
    await m.api('PUT', '/variable', { body: { key: '_other1', value: '' } });
    const list = await m.api('GET', '/variables', { token: bob });
    expect(list.status).toBe(200);
    expect(list.body.data.map((v: { key: string }) => v.key)).toEqual(['API_KEY', '_other1']);
    expect(list.body.total).toBe(2);
    const upd = await m.api('PUT', '/variable', { body: { _id: id, key: 'API_KEY', value: 'def' } });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ _id: id, value: 'def', remark: 'the key' });
    const renamed = await m.api('PUT', '/variable', { body: { _id: id, key: 'API_TOKEN', value: 'def', remark: '' } });
    expect(renamed.body.data).toMatchObject({ key: 'API_TOKEN', remark: '' });
    expect(await listVariablesAsEnv(m.master.store.db)).toEqual({ API_TOKEN: 'def', _other1: '' });
    expect((await m.api('DELETE', `/variable/${id}`)).status).toBe(200);
    expect((await m.api('DELETE', `/variable/${id}`)).status).toBe(404);
    expect((await m.api('GET', '/variables')).body.data.map((v: { key: string }) => v.key)).toEqual(['_other1']);
  });

  it('refuses invalid and duplicate keys, storing nothing', async () => {
    const before = await counts(m);
    for (const key of ['1ABC', 'A-B', 'A B', 'É', '', 'A=B']) {
      const r = await m.api('PUT', '/variable', { body: { key, value: 'x' } });
      expect(r.status, key).toBe(400);
    }
    expect((await m.api('PUT', '/variable', { body: { key: 'A' } })).status).toBe(400);
    const dup = await m.api('PUT', '/variable', { body: { key: '_other1', value: 'x' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('a variable with key "_other1" already exists');
    const other = await m.api('PUT', '/variable', { body: { key: 'SECOND', value: 'x' } });
    const before2 = await counts(m);
    expect(
      (await m.api('PUT', '/variable', { body: { _id: other.body.data._id, key: '_other1', value: 'x' } })).status,
    ).toBe(409);
    expect(
      (await m.api('PUT', '/variable', { body: { _id: 'aaaaaaaaaaaaaaaaaaaaaaaa', key: 'NEW_ONE', value: 'x' } }))
        .status,
    ).toBe(404);
    expect(await counts(m)).toEqual(before2);
    expect(before2.variables).toBe(before.variables + 1);
  });

  it('lets only administrators change them (403), changing nothing', async () => {
    const rows = async () => m.master.store.db.selectFrom('variables').selectAll().orderBy('id').execute();
    const before = await rows();
    const id = before[0].id;
    expect((await m.api('PUT', '/variable', { token: bob, body: { key: 'BOB', value: 'x' } })).status).toBe(403);
    expect((await m.api('PUT', '/variable', { token: bob, body: { _id: id, key: 'BOB', value: 'x' } })).status).toBe(
      403,
    );
    expect((await m.api('DELETE', `/variable/${id}`, { token: bob })).status).toBe(403);
    expect((await m.api('GET', '/variables', { token: null })).status).toBe(401);
    expect(await rows()).toEqual(before);
  });
});
