/**
 * Environment jobs end by themselves when their node goes away: one it never took and one it took and stopped
 * reporting on both end failed with the reason once their stored deadline passes; a word of the node moves the
 * deadline on. Jobs stored before deadlines existed get one.
 */
import { NODE_ID_HEADER, NODE_KEY_HEADER, newId } from '@crawldeck/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { waitFor } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';

const KEY = 'env-expiry-key';
const TTL = 4000;
let m: TestMaster;
let sim: SimNode;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY, envJobTimeoutMs: TTL });
  sim = new SimNode({ master: m.url, key: KEY, name: 'env-expiry-node' });
  await sim.connect();
});
afterAll(async () => {
  sim?.close();
  await m?.close();
});

type Job = { _id: string; status: string; error: string; reason: unknown; finish_ts: string | null };

async function install(name: string): Promise<string> {
  const r = await m.api('POST', '/env-jobs', {
    body: { target: 'pip', action: 'install', name, node_ids: [sim.nodeId] },
  });
  expect(r.status, r.body.error).toBe(200);
  return r.body.data[0]._id;
}

/** A call of the node API as the simulated node makes it. */
async function asNode(route: string, body: unknown = {}) {
  const r = await fetch(`${m.url}/api/node-api${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [NODE_KEY_HEADER]: sim.key, [NODE_ID_HEADER]: sim.nodeId },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { data: any }).data;
}

const deadline = async (id: string) =>
  Number(
    (await m.master.store.db.selectFrom('env_jobs').select('deadline_ts').where('id', '=', id).executeTakeFirst())!
      .deadline_ts,
  );

const ended = (id: string) =>
  waitFor(`job ${id} ended`, async () => {
    const j = (await m.api('GET', `/env-jobs/${id}`)).body.data as Job;
    return j.status === 'failed' ? j : undefined;
  });

describe('environment jobs of a node that goes away', () => {
  it('end failed with the reason, whether the node took them or not', async () => {
    const taken = await install('cd-taken');
    const waiting = await install('cd-waiting');
    const claim = await asNode('/env-jobs/claim');
    expect(claim.job.id).toBe(taken);
    // A word of the node while it runs moves the deadline on.
    const before = Date.now();
    await asNode(`/env-jobs/${taken}/log`, { lines: ['Collecting cd-taken'] });
    expect(await deadline(taken)).toBeGreaterThanOrEqual(before + TTL);
    expect((await m.api('GET', `/env-jobs/${taken}`)).body.data.status).toBe('running');

    // The node goes away without another word.
    sim.close();
    const [t, w] = await Promise.all([ended(taken), ended(waiting)]);
    expect(t.error).toMatch(/^expired: its node did not report on it for 4 s/);
    expect(w.error).toMatch(/^expired: its node did not take it within 4 s/);
    // The console says why in the reader's language: the node was offline, or went away mid-job.
    expect(w.reason).toEqual({ kind: 'node_offline' });
    expect(t.reason).toEqual({ kind: 'node_lost' });
    expect(t.finish_ts).not.toBeNull();
    // An answer of the node after the end changes nothing.
    await asNode(`/env-jobs/${taken}/finish`, { ok: true, error: '' });
    expect((await m.api('GET', `/env-jobs/${taken}`)).body.data).toMatchObject({ status: 'failed', error: t.error });
  });

  it('gives a job stored without a deadline one, and ends it when that passes', async () => {
    const id = newId();
    await m.master.store.db
      .insertInto('env_jobs')
      .values({
        id,
        node_id: sim.nodeId,
        target: 'pip',
        action: 'install',
        name: 'cd-old',
        version: '',
        environment: 'default',
        status: 'pending',
        log: '',
        error: '',
        user_id: '',
        username: 'admin',
        create_ts: Date.now() - 86_400_000,
        start_ts: null,
        finish_ts: null,
        deadline_ts: null,
      })
      .execute();
    const stamped = await waitFor('a deadline stamped', async () => (await deadline(id)) || undefined);
    expect(stamped).toBeGreaterThan(Date.now() - TTL);
    expect((await ended(id)).error).toMatch(/did not take it/);
  });
});
