import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../store/db.ts';
import { migrateToLatest } from '../../store/migrate.ts';
import { HeartbeatRecorder } from './heartbeats.ts';
import { insertMetrics, RETENTION_ROWS, upsertRegisteredNode, type Registration } from './node-state.store.ts';

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'heartbeats-'));
  store = openStore({ dataDir: dir, checkpoints: 'sqlite' });
  await migrateToLatest(store.db, 'sqlite');
  const systemInfo = { os: 'linux', arch: 'x64', num_cpu: 2, hostname: 'n1', executables: [], python: '' };
  const host: Registration = { nodeId: 'n1', name: 'n1', nodeType: 'worker', maxRunners: 1, ip: '', systemInfo };
  await upsertRegisteredNode(store.db, host, Date.now());
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const silent = { warn: () => undefined, error: () => undefined } as never;

describe('metrics retention', () => {
  it('between its statements, a backlog waits until the store has taken in the last one', async () => {
    const day = 24 * 3600_000;
    const old = Date.now() - 3 * day;
    const rows = Array.from({ length: 3 * RETENTION_ROWS.first }, (_, i) => ({
      node_id: 'n1',
      ts: old + i * 1000,
      cpu: 1,
      mem: 1,
      disk: 1,
      running: 0,
    }));
    await insertMetrics(store.db, rows);
    let waits = 0;
    const recorder = new HeartbeatRecorder(store.db, silent, 1000, day, async () => {
      waits++;
    });
    const statements = () => recorder.writes.retention;
    const deleted = await recorder.retain();
    expect(deleted).toBe(rows.length);
    // Every statement that found a full chunk (more may follow) is followed by a wait; the last one is not.
    expect(waits).toBe(statements() - 1);
    expect(statements()).toBeGreaterThanOrEqual(2);
  });
});
