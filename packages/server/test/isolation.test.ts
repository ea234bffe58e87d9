import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';
import { PY_ATTEMPT } from './support/py-probe.ts';

// A normal user's code (a task, or a Scrapy project the master introspects) must find nothing of the master:
// not its environment, not its data dir (store, node key, secret key), not the node's data dir.
const MARKER = `isolation-marker-${process.pid}-${Date.now()}`;
const NODE_KEY = `isolation-node-key-${process.pid}`;
process.env.CRAWLDECK_ISOLATION_MARKER = MARKER;
process.env.CRAWLDECK_ADMIN_PASSWORD = ADMIN_PASSWORD;
process.env.CRAWLDECK_NODE_KEY = NODE_KEY;

const asRoot = process.getuid?.() === 0;
const NEEDLES = [MARKER, ADMIN_PASSWORD, NODE_KEY];

let m: TestMaster;
let worker: ChildNode;
let normal: string;
let masterNodeId: string;
let workerNodeId: string;
const scratch: string[] = [];
// The worker's tasks run here (`--work-dir`); it is killed, not stopped, so the test removes it.
const workerWorkDir = path.join(os.tmpdir(), `crawldeck-iso-work-${process.pid}`);
scratch.push(workerWorkDir);

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true, nodeKey: NODE_KEY });
  worker = spawnNode(m.url, NODE_KEY, 'iso-worker', ['--work-dir', workerWorkDir]);
  const nodes = (await waitNodes(m, 2, 30_000)) as { _id: string; type: string }[];
  masterNodeId = nodes.find((n) => n.type === 'master')!._id;
  workerNodeId = nodes.find((n) => n.type === 'worker')!._id;
  normal = await m.createUser('iso-normal');
  expect((await m.api('PUT', '/variable', { body: { key: 'GLOBAL_ONE', value: 'g1' } })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  worker?.proc.kill('SIGKILL');
  await m?.close();
  if (worker) rmSync(worker.dataDir, { recursive: true, force: true });
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

function tempDir(mode: number): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-iso-'));
  chmodSync(dir, mode);
  scratch.push(dir);
  return dir;
}

/** A spider that tries everything and reports as one item what it got (`ok`) or the error it met. */
function probe(nodeDataDir: string, nodePid: number): string {
  const d = m.dataDir;
  const reads = [d, `${d}/node-key`, `${d}/secret-key`, `${d}/crawldeck.db`, nodeDataDir, `${nodeDataDir}/node-id`];
  const relative = ['../../../node-key', '../../../secret-key', '../../../crawldeck.db', '../../node-id'];
  const environs = [`/proc/${process.pid}/environ`, `/proc/${nodePid}/environ`];
  const writes = [`${d}/crawldeck.db`, `${d}/pwned`, `${nodeDataDir}/pwned`];
  return `import json, os, sqlite3
from crawldeck import save_item
NEEDLES = ${JSON.stringify(NEEDLES)}
${PY_ATTEMPT}
def store():
    db = sqlite3.connect(${JSON.stringify(`file:${d}/crawldeck.db?mode=rw`)}, uri=True)
    db.execute("UPDATE users SET role='admin'")
    db.commit()
hits = []
for pid in os.listdir('/proc'):
    if not pid.isdigit():
        continue
    for part in ('cmdline', 'environ'):
        try:
            text = open('/proc/%s/%s' % (pid, part), 'rb').read().decode('utf-8', 'replace')
        except Exception:
            continue
        hits += ['%s/%s' % (pid, part) for n in NEEDLES if n in text]
report = {
    'uid': os.getuid(),
    'cwd': os.getcwd(),
    'env': dict(os.environ),
    'reads': {p: attempt(lambda p=p: read(p)) for p in ${JSON.stringify([...reads, ...relative, ...environs])}},
    'writes': {p: attempt(lambda p=p: open(p, 'ab').write(b'x')) for p in ${JSON.stringify(writes)}},
    'store': attempt(store),
    'hits': hits,
}
save_item({'report': json.dumps(report)})
print('probe done')
`;
}

interface Report {
  uid: number;
  cwd: string;
  env: Record<string, string>;
  reads: Record<string, string>;
  writes: Record<string, string>;
  store: string;
  hits: string[];
}

// The task contract, and the part of it Crawlab's SDK reads under its own names (Crawlab compatibility).
const CONTRACT =
  /^CRAWLDECK_(TASK_ID|SPIDER_ID|SPIDER_NAME|NODE_ID|COLLECTION|ITEMS|IS_DEDUP|DEDUP_FIELD|DEDUP_METHOD|PYTHON)$|^CRAWLAB_(TASK_ID|SPIDER_ID|NODE_ID|COLLECTION|IS_DEDUP|DEDUP_FIELD|DEDUP_METHOD)$/;
const ALLOWED = new Set([
  'PATH',
  'HOME',
  'LANG',
  'TZ',
  'PYTHONPATH',
  'NODE_PATH',
  'PYTHONUNBUFFERED',
  'PWD',
  'SHLVL',
  '_',
  'GLOBAL_ONE',
  'SPIDER_ONE',
]);

function taskUid(): number {
  return Number(execFileSync('id', ['-u', 'crawldeck-task'], { encoding: 'utf8' }).trim());
}

function expectNothingLeaked(r: Report, nodeDataDir: string): void {
  for (const [k, v] of Object.entries(r.env)) {
    expect(ALLOWED.has(k) || CONTRACT.test(k), `unexpected variable ${k}`).toBe(true);
    for (const n of NEEDLES) expect(v.includes(n), `${k} holds a secret`).toBe(false);
  }
  expect(r.env.GLOBAL_ONE).toBe('g1');
  expect(r.env.SPIDER_ONE).toBe('s1');
  expect(r.cwd.startsWith(m.dataDir + path.sep)).toBe(false);
  expect(r.cwd.startsWith(nodeDataDir + path.sep)).toBe(false);
  expect(r.hits).toEqual([]);
  if (!asRoot) return; // not root: the task runs as the node's user (README "Isolation")
  // Each task runs as a uid of its own from the node's pool, never the node's or the shared task user's.
  expect(r.uid).toBeGreaterThanOrEqual(1_900_000_000);
  expect(r.uid).not.toBe(taskUid());
  for (const [p, outcome] of Object.entries(r.reads)) expect(outcome, `read ${p}`).not.toBe('ok');
  for (const [p, outcome] of Object.entries(r.writes)) expect(outcome, `write ${p}`).not.toBe('ok');
  expect(r.store).not.toBe('ok');
  expect(existsSync(path.join(m.dataDir, 'pwned'))).toBe(false);
  expect(existsSync(path.join(nodeDataDir, 'pwned'))).toBe(false);
}

async function runProbe(nodeId: string, nodeDataDir: string, nodePid: number, name: string): Promise<Report> {
  const id = await makeSpider(
    m,
    name,
    'python3 probe.py',
    { 'probe.py': probe(nodeDataDir, nodePid) },
    { envs: [{ name: 'SPIDER_ONE', value: 's1' }] },
    normal,
  );
  const [taskId] = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [nodeId] }, normal);
  const task = await waitTask(m, taskId, ['finished', 'error'], 60_000);
  expect(task.status, task.error).toBe('finished');
  expect(task.node_id).toBe(nodeId);
  const rows = (await m.api('GET', `/tasks/${taskId}/results`, { token: normal })).body.data as { report: string }[];
  expect(rows).toHaveLength(1);
  return JSON.parse(rows[0].report) as Report;
}

describe('a normal user’s code is isolated from the master and the node', () => {
  it('on the master’s own node (allowed by the admin setting) it finds no secret, cannot read the data dirs or write the store', async () => {
    const on = await m.api('POST', '/setting', { body: { user_tasks_on_master: 'Y' } });
    expect(on.status).toBe(200);
    expect(on.body.data.user_tasks_on_master).toBe('Y');
    const r = await runProbe(masterNodeId, path.join(m.dataDir, 'node'), process.pid, 'iso-probe-master');
    expectNothingLeaked(r, path.join(m.dataDir, 'node'));
    const users = await m.master.store.db.selectFrom('users').select(['username', 'role']).execute();
    expect(users.find((u) => u.username === 'iso-normal')!.role).toBe('normal');
  }, 90_000);

  it('on a worker node it finds no secret of the node either', async () => {
    const r = await runProbe(workerNodeId, worker.dataDir, worker.proc.pid!, 'iso-probe-worker');
    expectNothingLeaked(r, worker.dataDir);
    expect(r.cwd.startsWith(path.join(workerWorkDir, 'runs') + path.sep)).toBe(true);
  }, 90_000);

  it('keeps normal users’ tasks off the master node while a worker exists, unless the admin allows it', async () => {
    expect(
      (await m.api('POST', '/setting', { body: { user_tasks_on_master: 'N' } })).body.data.user_tasks_on_master,
    ).toBe('N');
    expect((await m.api('GET', '/system/setting')).body.data.user_tasks_on_master).toBe('N');
    expect((await m.api('POST', '/setting', { token: normal, body: { user_tasks_on_master: 'Y' } })).status).toBe(403);
    const id = await makeSpider(m, 'iso-where', 'echo here', {}, {}, normal);
    const refused = await m.api('PUT', '/tasks', {
      token: normal,
      body: { spider_id: id, run_type: 'selected-nodes', node_ids: [masterNodeId] },
    });
    expect(refused.status).toBe(403);
    const all = await runSpider(m, id, { run_type: 'all-nodes' }, normal);
    expect(all).toHaveLength(1);
    const random: string[] = [];
    for (let i = 0; i < 4; i++) random.push(...(await runSpider(m, id, {}, normal)));
    for (const t of [...all, ...random])
      expect((await waitTask(m, t, ['finished'], 30_000)).node_id).toBe(workerNodeId);
    // With no enabled worker node, normal users' tasks run on the master node.
    expect((await m.api('POST', `/nodes/${workerNodeId}`, { body: { enabled: false } })).status).toBe(200);
    try {
      const [alone] = await runSpider(m, id, {}, normal);
      expect((await waitTask(m, alone, ['finished'], 30_000)).node_id).toBe(masterNodeId);
    } finally {
      await m.api('POST', `/nodes/${workerNodeId}`, { body: { enabled: true } });
    }
    // Admins' tasks may still run there.
    const adminSpider = await makeSpider(m, 'iso-admin-where', 'echo here');
    const [own] = await runSpider(m, adminSpider, { run_type: 'selected-nodes', node_ids: [masterNodeId] });
    expect((await waitTask(m, own, ['finished'], 30_000)).node_id).toBe(masterNodeId);
  }, 90_000);

  it('Scrapy introspection runs the project’s code in a sandbox, without the master’s privileges', async () => {
    const hostTmpDir = tempDir(0o777);
    const privateDir = tempDir(0o700);
    // The project's settings module tells what it found through the name of its one spider, which the list shows.
    const settings = `import json, os
BOT_NAME = 'proj'
SPIDER_MODULES = ['proj.spiders']
for target in ${JSON.stringify([path.join(m.dataDir, 'pwned-by-settings'), path.join(privateDir, 'pwned-by-settings')])}:
    try:
        open(target, 'w').write('pwned')
    except Exception:
        pass
env = json.dumps(dict(os.environ))
os.environ['ISO_FOUND'] = '%d-%s-%s-%s' % (
    os.getuid(),
    'sharedtmp' if os.path.isdir(${JSON.stringify(hostTmpDir)}) else 'privatetmp',
    'secret' if any(n in env for n in ${JSON.stringify(NEEDLES)}) else 'clean',
    'datadir' if os.getcwd().startswith(${JSON.stringify(m.dataDir + path.sep)}) else 'checkout',
)
`;
    const id = await makeSpider(
      m,
      'iso-scrapy',
      'scrapy crawl s1',
      {
        'scrapy.cfg': '[settings]\ndefault = proj.settings\n',
        'proj/__init__.py': '',
        'proj/settings.py': settings,
        'proj/spiders/__init__.py': '',
        'proj/spiders/s1.py':
          'import os, scrapy\nclass S1(scrapy.Spider):\n    name = "found-" + os.environ.get("ISO_FOUND", "nothing")\n',
      },
      {},
      normal,
    );
    const list = await m.api('GET', `/spiders/${id}/scrapy/spiders`, { token: normal });
    expect(list.status, list.body.error).toBe(200);
    const uid = asRoot ? taskUid() : process.getuid!();
    // The project's code ran, as the task user, with a /tmp of its own, no secret and outside the data dir …
    expect(list.body.data).toEqual([`found-${uid}-privatetmp-clean-checkout`]);
    // … and wrote nothing where only the master may write.
    expect(existsSync(path.join(m.dataDir, 'pwned-by-settings'))).toBe(false);
    if (asRoot) expect(existsSync(path.join(privateDir, 'pwned-by-settings'))).toBe(false);
  }, 90_000);
});
