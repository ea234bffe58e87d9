/**
 * The runtimes a node itself needs cannot be uninstalled from the console: the Python it runs spiders with, the
 * Node.js it runs on, a language that names one of their system packages, and pip in its environments. The master
 * refuses with a message the console shows and stores no job; other uninstalls still go through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@crawldeck/shared';
import { startTestMaster, type TestMaster } from './harness.ts';
import { insertRow } from './seed-rows.ts';

let m: TestMaster;
let nodeId = '';

const jobCount = async () => (await m.api('GET', '/env-jobs')).body.data.length as number;

beforeAll(async () => {
  m = await startTestMaster();
  // A registered worker that is not running: the jobs that are let through stay queued, nothing is run here.
  nodeId = newId();
  await insertRow(m.master.store.db, 'nodes', { id: nodeId, name: 'runtime-node', type: 'worker', status: 'offline' });
});

afterAll(async () => {
  await m?.close();
});

describe('uninstalling what a node runs on', () => {
  it('is refused for Python 3 and Node.js, on one node or all, with the reason', async () => {
    const before = await jobCount();
    for (const [name, runtime] of [
      ['python', 'Python 3'],
      ['node', 'Node.js'],
    ] as const) {
      for (const where of [{ node_ids: [nodeId] }, { all_nodes: true }]) {
        const r = await m.api('POST', '/env-jobs', {
          body: { target: 'language', action: 'uninstall', name, ...where },
        });
        expect(r.status, `${name} ${JSON.stringify(where)}`).toBe(400);
        expect(r.body.error).toBe(
          `${runtime} is what the node runs on (and runs spiders with); uninstalling "${name}" would remove it, so it cannot be done from the console`,
        );
      }
    }
    expect(await jobCount()).toBe(before);
  });

  it("is refused for a language built on a runtime's system packages, and for pip itself", async () => {
    const py311 = {
      key: 'python311',
      name: 'Python 3.11',
      executable: 'python3.11',
      version_args: ['--version'],
      packages: { apt: ['python3.11', 'python3'], dnf: ['python3.11'], apk: ['python3'] },
    };
    expect((await m.api('PUT', '/env-languages', { body: py311 })).status).toBe(200);
    const lang = await m.api('POST', '/env-jobs', {
      body: { target: 'language', action: 'uninstall', name: 'python311', node_ids: [nodeId] },
    });
    expect(lang.status).toBe(400);
    expect(lang.body.error).toMatch(/^Python 3 is what the node runs on .*"python311"/);
    for (const name of ['pip', 'PIP']) {
      const pip = await m.api('POST', '/env-jobs', {
        body: { target: 'pip', action: 'uninstall', name, node_ids: [nodeId] },
      });
      expect(pip.status).toBe(400);
      expect(pip.body.error).toBe(
        `"${name}" installs every other package of the node's environments; it cannot be uninstalled`,
      );
    }
  });

  it('lets other uninstalls and installs of the runtimes through', async () => {
    const before = await jobCount();
    for (const body of [
      { target: 'language', action: 'uninstall', name: 'ruby', node_ids: [nodeId] },
      { target: 'pip', action: 'uninstall', name: 'pip-tools', node_ids: [nodeId] },
      { target: 'npm', action: 'uninstall', name: 'npm', node_ids: [nodeId] },
      { target: 'language', action: 'install', name: 'python', node_ids: [nodeId] },
    ]) {
      const r = await m.api('POST', '/env-jobs', { body });
      expect(r.status, `${body.action} ${body.name}: ${r.body.error}`).toBe(200);
    }
    expect(await jobCount()).toBe(before + 4);
  });
});
