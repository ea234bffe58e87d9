import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';
import { PY_ATTEMPT } from './support/py-probe.ts';

// Two normal users' tasks running at once on one node: the intruder's code looks for everything of the victim's
// task it could reach (its environment through /proc, its workspace, home, items file and log spool) and tries to
// write into its results. It must find nothing and change nothing.
const NODE_KEY = `tenants-node-key-${process.pid}`;
process.env.CRAWLDECK_ADMIN_PASSWORD = ADMIN_PASSWORD;
const asRoot = process.getuid?.() === 0;

let m: TestMaster;
let worker: ChildNode;
let victimUser: string;
let intruderUser: string;
let masterNodeId: string;
let workerNodeId: string;
const workerWorkDir = path.join(os.tmpdir(), `crawldeck-tenants-work-${process.pid}`);

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true, nodeKey: NODE_KEY });
  worker = spawnNode(m.url, NODE_KEY, 'tenants-worker', ['--work-dir', workerWorkDir]);
  const nodes = (await waitNodes(m, 2, 30_000)) as { _id: string; type: string }[];
  masterNodeId = nodes.find((n) => n.type === 'master')!._id;
  workerNodeId = nodes.find((n) => n.type === 'worker')!._id;
  victimUser = await m.createUser('tenant-victim');
  intruderUser = await m.createUser('tenant-intruder');
  expect((await m.api('POST', '/setting', { body: { user_tasks_on_master: 'Y' } })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  worker?.proc.kill('SIGKILL');
  await m?.close();
  if (worker) rmSync(worker.dataDir, { recursive: true, force: true });
  rmSync(workerWorkDir, { recursive: true, force: true });
});

const VICTIM = `import json, os, time
from crawldeck import save_item
save_item({'n': 1})
print('VICTIM ' + json.dumps({'cwd': os.getcwd(), 'items': os.environ['CRAWLDECK_ITEMS'],
                              'home': os.environ['HOME'], 'uid': os.getuid()}), flush=True)
while True:
    time.sleep(0.2)
`;

const INTRUDER = `import json, os
from crawldeck import save_item
V = json.loads(os.environ['VICTIM'])
# Written backwards, so that the intruder's own environment does not hold what it looks for.
SECRET = V['secret'][::-1]
${PY_ATTEMPT}
def append(p, data):
    with open(p, 'ab') as f:
        f.write(data)
hits = []
for pid in os.listdir('/proc'):
    if not pid.isdigit():
        continue
    for part in ('environ', 'cmdline'):
        try:
            text = open('/proc/%s/%s' % (pid, part), 'rb').read().decode('utf-8', 'replace')
        except Exception:
            continue
        if SECRET in text:
            hits.append('%s/%s' % (pid, part))
runs = os.path.dirname(os.path.dirname(V['cwd']))
reads = [V['cwd'], os.path.join(V['cwd'], 'victim.py'), V['items'], V['home'], V['spool'],
         os.path.join(os.path.dirname(runs), 'spider-envs')]
def listing(p):
    try:
        return os.listdir(p)
    except Exception as e:
        return type(e).__name__
report = {
    'uid': os.getuid(),
    'hits': hits,
    'runs': listing(runs),
    'reads': {p: attempt(lambda p=p: read(p)) for p in reads},
    'writes': {
        V['items']: attempt(lambda: append(V['items'], b'{"injected_by": "intruder"}\\n')),
        os.path.join(V['cwd'], 'pwned'): attempt(lambda: append(os.path.join(V['cwd'], 'pwned'), b'x')),
    },
}
save_item({'report': json.dumps(report)})
`;

interface Report {
  uid: number;
  hits: string[];
  runs: string[] | string;
  reads: Record<string, string>;
  writes: Record<string, string>;
}

async function victimPaths(taskId: string): Promise<{ cwd: string; items: string; home: string; uid: number }> {
  const line = await waitFor(
    `the victim task ${taskId} to start`,
    async () => (await allLog(m, taskId)).find((l) => l.msg.startsWith('VICTIM ')),
    60_000,
  );
  return JSON.parse(line.msg.slice('VICTIM '.length)) as { cwd: string; items: string; home: string; uid: number };
}

async function pair(nodeId: string, nodeDataDir: string, tag: string): Promise<void> {
  const secret = `victim-secret-${tag}-${process.pid}`;
  const victim = await makeSpider(
    m,
    `tenant-victim-${tag}`,
    'python3 victim.py',
    { 'victim.py': VICTIM },
    { envs: [{ name: 'API_KEY', value: secret }] },
    victimUser,
  );
  const [victimTask] = await runSpider(m, victim, { run_type: 'selected-nodes', node_ids: [nodeId] }, victimUser);
  const v = await victimPaths(victimTask);
  const spool = path.join(nodeDataDir, 'tasks', victimTask, 'log.txt');
  const intruder = await makeSpider(
    m,
    `tenant-intruder-${tag}`,
    'python3 intruder.py',
    { 'intruder.py': INTRUDER },
    { envs: [{ name: 'VICTIM', value: JSON.stringify({ ...v, spool, secret: [...secret].reverse().join('') }) }] },
    intruderUser,
  );
  const [intruderTask] = await runSpider(m, intruder, { run_type: 'selected-nodes', node_ids: [nodeId] }, intruderUser);
  const done = await waitTask(m, intruderTask, ['finished', 'error'], 60_000);
  expect(done.status, done.error).toBe('finished');
  const rows = (await m.api('GET', `/tasks/${intruderTask}/results`, { token: intruderUser })).body.data as {
    report: string;
  }[];
  const r = JSON.parse(rows[0].report) as Report;
  expect(r.hits, 'the victim’s environment through /proc').toEqual([]);
  // The folder of the node's tasks shows the intruder's own task at the most.
  if (Array.isArray(r.runs)) expect(r.runs.filter((name) => name !== intruderTask)).toEqual([]);
  for (const [p, outcome] of Object.entries(r.reads)) expect(outcome, `read ${p}`).not.toBe('ok');
  for (const [p, outcome] of Object.entries(r.writes)) expect(outcome, `write ${p}`).not.toBe('ok');
  if (asRoot) expect(r.uid, 'tasks of two users share a uid').not.toBe(v.uid);
  // The victim's results hold only what its own code saved.
  expect((await m.api('POST', `/tasks/${victimTask}/cancel`, { token: victimUser })).status).toBe(200);
  await waitTask(m, victimTask, ['cancelled'], 60_000);
  const victimRows = (await m.api('GET', `/tasks/${victimTask}/results`, { token: victimUser })).body.data as {
    n?: number;
    injected_by?: string;
  }[];
  expect(victimRows.map((row) => row.n)).toEqual([1]);
}

describe('two users’ tasks running at once on one node see nothing of each other', () => {
  it('on the master’s own node', async () => {
    await pair(masterNodeId, path.join(m.dataDir, 'node'), 'master');
  }, 150_000);

  it('on a worker node', async () => {
    await pair(workerNodeId, worker.dataDir, 'worker');
  }, 150_000);
});
