/**
 * A per-spider environment build runs the spider author's code (here a package.json `preinstall` script) in the
 * task's sandbox. While another user's task runs on the same node, the build looks for everything of it and of the
 * node it could reach: the victim's process through /proc, its workspace and items file, its spider's environment,
 * the master's data folder, the folder of every spider's environments. It tries to write outside its own
 * environment, into the host's /tmp and into the node's folder of the environment, and plants a link where the node
 * writes its ready marker. Its report lands in the build log (the task's log); it must find nothing, change nothing,
 * and a root-only file the link points at stays as it was. A build that hogs memory ends with the task's limit.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { PY_ATTEMPT } from './support/py-probe.ts';

process.env.CRAWLDECK_ADMIN_PASSWORD = ADMIN_PASSWORD;
const asRoot = process.getuid?.() === 0;
const TAG = `build-probe-${process.pid}`;

let m: TestMaster;
let nodeId: string;
let victimUser: string;
let intruderUser: string;
let canaryDir: string;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  nodeId = (await waitNodes(m, 1, 60_000))[0]._id as string;
  victimUser = await m.createUser('build-victim');
  intruderUser = await m.createUser('build-intruder');
  expect((await m.api('POST', '/setting', { body: { user_tasks_on_master: 'Y' } })).status).toBe(200);
  canaryDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-build-canary-'));
}, 60_000);

afterAll(async () => {
  await m?.close();
  if (canaryDir) rmSync(canaryDir, { recursive: true, force: true });
});

/** A package.json whose `preinstall` runs the Python in its `probe` field (the build's folder holds only this file). */
const probePackage = (name: string, probe: string) =>
  JSON.stringify({
    name,
    version: '1.0.0',
    probe,
    scripts: { preinstall: `python3 -c "import json; exec(json.load(open('package.json'))['probe'])"` },
  });

const VICTIM = `import json, os, time
print('VICTIM ' + json.dumps({'cwd': os.getcwd(), 'items': os.environ['CRAWLDECK_ITEMS']}), flush=True)
while True:
    time.sleep(0.2)
`;

/** The intruder's probe; `T` names what it looks for. Every attempt is reported as 'ok' or the error it met. */
const probe = (targets: Record<string, unknown>) => `import json, os
T = json.loads(${JSON.stringify(JSON.stringify(targets))})
MARK = T['mark'][::-1]
${PY_ATTEMPT}
def write(p):
    with open(p, 'ab') as f:
        f.write(b'x')
def listing(p):
    try:
        return os.listdir(p)
    except Exception as e:
        return type(e).__name__
seen = []
for pid in os.listdir('/proc'):
    if pid.isdigit():
        try:
            if MARK in open('/proc/%s/cmdline' % pid, 'rb').read().decode('utf-8', 'replace'):
                seen.append(pid)
        except Exception:
            pass
report = {
    'seen': seen,
    'envs': listing(T['envs']),
    'reads': {p: attempt(lambda p=p: read(p)) for p in T['reads']},
    'writes': {p: attempt(lambda p=p: write(p)) for p in T['writes']},
    'links': {p: attempt(lambda p=p: os.symlink(T['canary'], p)) for p in T['links']},
}
print('BUILD-PROBE ' + json.dumps(report), flush=True)
`;

interface Report {
  seen: string[];
  envs: string[] | string;
  reads: Record<string, string>;
  writes: Record<string, string>;
  links: Record<string, string>;
}

describe.runIf(asRoot)('a per-spider environment build runs in the task’s sandbox', () => {
  it('finds nothing of another user’s task or the node, writes nothing outside its environment', async () => {
    const canary = path.join(canaryDir, 'canary');
    writeFileSync(canary, 'root only\n', { mode: 0o600 });
    const before = statSync(canary);

    // The victim's spider has an environment of its own, and its task runs while the intruder's build does.
    const victim = await makeSpider(
      m,
      'build-victim',
      `python3 victim.py ${TAG}`,
      { 'victim.py': VICTIM, 'package.json': JSON.stringify({ name: 'victim', version: '1.0.0' }) },
      {},
      victimUser,
    );
    const [victimTask] = await runSpider(m, victim, { run_type: 'selected-nodes', node_ids: [nodeId] }, victimUser);
    const line = await waitFor(
      'the victim task to start',
      async () => (await allLog(m, victimTask)).find((l) => l.msg.startsWith('VICTIM ')),
      120_000,
    );
    const v = JSON.parse(line.msg.slice('VICTIM '.length)) as { cwd: string; items: string };
    const workDir = path.dirname(path.dirname(path.dirname(v.cwd)));
    const envs = path.join(workDir, 'spider-envs');
    const victimEnv = readdirSync(envs).find((name) => name.startsWith(`${victim}-npm-`));
    expect(victimEnv, 'the victim’s environment').toBeTruthy();
    const hostTmp = path.join(os.tmpdir(), `${TAG}-from-build`);

    const targets = {
      mark: [...TAG].reverse().join(''),
      canary,
      envs,
      reads: [v.cwd, path.join(v.cwd, 'victim.py'), v.items, path.join(envs, victimEnv!), m.dataDir],
      // Beside the environment (the node's folder), the folder of all environments, the host's /tmp.
      writes: ['../planted', path.join(envs, 'planted'), hostTmp],
      // Where the node writes: its ready marker and the tools' credential files, beside the environment.
      links: ['../ready', '../netrc', '../npmrc'],
    };
    const intruder = await makeSpider(
      m,
      'build-intruder',
      'echo built',
      { 'package.json': probePackage('intruder', probe(targets)) },
      {},
      intruderUser,
    );
    const [task] = await runSpider(m, intruder, { run_type: 'selected-nodes', node_ids: [nodeId] }, intruderUser);
    const t = await waitTask(m, task, ['finished', 'error'], 180_000);
    const log = (await allLog(m, task)).map((l) => l.msg);
    expect(t.status, log.join('\n')).toBe('finished');
    expect(log).toContain('[environment] the build runs in the task’s sandbox: only env/ and its home are writable');
    const said = log.find((l) => l.startsWith('BUILD-PROBE '));
    expect(said, 'the probe’s report in the build log').toBeTruthy();
    const r = JSON.parse(said!.slice('BUILD-PROBE '.length)) as Report;

    expect(r.seen, 'the victim’s process through /proc').toEqual([]);
    if (Array.isArray(r.envs)) expect(r.envs.filter((name) => name.startsWith(`${victim}-`))).toEqual([]);
    for (const [p, outcome] of Object.entries(r.reads)) expect(outcome, `read ${p}`).not.toBe('ok');
    // The node's folder of the environment is read-only to the build; the rest of the node's work folder and /tmp
    // are the build's own empty ones, gone with it: nothing it writes there reaches the host.
    expect(r.writes['../planted'], 'write beside the environment').not.toBe('ok');
    const ownEnv = readdirSync(envs).find((name) => name.startsWith(`${intruder}-npm-`));
    for (const p of [path.join(envs, ownEnv!, 'planted'), path.join(envs, 'planted'), hostTmp])
      expect(existsSync(p), `${p} on the host`).toBe(false);
    for (const [p, outcome] of Object.entries(r.links)) expect(outcome, `link ${p}`).not.toBe('ok');

    const after = statSync(canary);
    expect(readFileSync(canary, 'utf8')).toBe('root only\n');
    expect([after.uid, after.mode & 0o777, after.mtimeMs]).toEqual([before.uid, 0o600, before.mtimeMs]);

    expect((await m.api('POST', `/tasks/${victimTask}/cancel`, { token: victimUser })).status).toBe(200);
    await waitTask(m, victimTask, ['cancelled'], 60_000);
  }, 300_000);

  it('a build that hogs memory ends with the task’s memory limit as the reason', async () => {
    const hog = `a = []\nwhile True:\n    a.append(bytearray(8 << 20))\n`;
    const id = await makeSpider(
      m,
      'build-hog',
      'echo never',
      { 'package.json': probePackage('hog', hog) },
      { limits: { memory_mb: 200 } },
      intruderUser,
    );
    const [task] = await runSpider(m, id, { run_type: 'selected-nodes', node_ids: [nodeId] }, intruderUser);
    const t = await waitTask(m, task, ['finished', 'error'], 180_000);
    expect(t.status).toBe('error');
    expect(t.error).toBe(
      "building the spider's Node.js environment failed: out of memory: the task used its limit of 200 MiB",
    );
  }, 300_000);
});
