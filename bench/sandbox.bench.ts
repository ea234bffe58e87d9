// Task start with the sandbox against a plain spawn, same run: the time from spawning a task's process until its
// command has run (`/bin/sh -c true` through the node's exit-code wrapper) and exited.
//   plain:    spawn as an unprivileged uid (what a node without a sandbox does)
//   sandbox:  a uid claimed from the pool, control groups made with limits, bubblewrap with the task's mounts and
//             namespaces, the groups removed and the uid given back afterwards (everything a task pays for)
// Then the same while 1, 10 and 100 other sandboxed tasks run (growth with the node's load).
// Root only (uids and control groups). Run: node --import tsx bench/sandbox.bench.ts [runs]
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TaskCgroup, cgroupVersion } from '../packages/node/src/tenancy/cgroups.ts';
import { jailSupport, spawnJailed } from '../packages/node/src/tenancy/jail.ts';
import { UidPool } from '../packages/node/src/tenancy/uid-pool.ts';

const RUNS = Number(process.argv[2] ?? 60);
const WRAPPER = '/bin/sh -c "$1"; s=$?; echo "$s" > "$2"; exit "$s"';
if (process.getuid?.() !== 0) throw new Error('run as root');

// As on a node: the work folder and the folder of runs may be passed through by the tasks' uids.
const work = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-sandbox-bench-'));
chmodSync(work, 0o711);
mkdirSync(path.join(work, 'runs'), { mode: 0o711 });
const pool = new UidPool({ base: 1_950_000_000, size: 1024, claimsDir: path.join(work, 'claims') }, 'bench');
const support = jailSupport(1_950_000_000);
if (!support.ok) throw new Error(support.reason);
const version = cgroupVersion();

function exited(child: ReturnType<typeof spawn>): Promise<void> {
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

async function plain(i: number): Promise<number> {
  const runDir = path.join(work, `plain-${i}`);
  mkdirSync(runDir, { mode: 0o777 });
  const started = performance.now();
  const child = spawn('/bin/sh', ['-c', WRAPPER, 'crawldeck-task', 'true', path.join(runDir, 'exit')], {
    cwd: '/',
    env: { PATH: '/usr/bin:/bin' },
    detached: true,
    stdio: 'ignore',
    uid: 1_950_000_999,
    gid: 1_950_000_999,
  });
  await exited(child);
  return performance.now() - started;
}

async function sandboxed(i: number): Promise<number> {
  const taskId = (i + 1).toString(16).padStart(24, '0');
  const runDir = path.join(work, 'runs', taskId);
  mkdirSync(runDir, { mode: 0o711 });
  mkdirSync(path.join(runDir, 'ws'));
  writeFileSync(path.join(runDir, 'exit'), '');
  const started = performance.now();
  const identity = pool.claim(taskId);
  chownSync(path.join(runDir, 'ws'), identity.uid, identity.gid);
  chownSync(path.join(runDir, 'exit'), identity.uid, identity.gid);
  const cgroup = version
    ? new TaskCgroup(version, taskId, { memoryMb: 512, cpuPercent: 100, maxProcesses: 256 })
    : undefined;
  cgroup?.create();
  const plan = {
    identity,
    cgroupProcs: cgroup?.procsFiles() ?? [],
    hidden: [work],
    readable: [],
    writable: [runDir],
    cwd: path.join(runDir, 'ws'),
    env: { PATH: '/usr/bin:/bin', HOME: runDir, SECRET: 'x'.repeat(64) },
  };
  const argv = ['/bin/sh', '-c', WRAPPER, 'crawldeck-task', 'true', path.join(runDir, 'exit')];
  await exited(spawnJailed(argv, plan, ['ignore', 'ignore', 'ignore'], support.bwrap));
  const ms = performance.now() - started;
  cgroup?.remove();
  pool.release(taskId);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

/** A sandbox that stays up (a sleeping task) until its process is killed: the load others start beside. */
function hold(i: number): { stop: () => void } {
  const taskId = `f${i.toString(16).padStart(23, '0')}`;
  const runDir = path.join(work, 'runs', taskId);
  mkdirSync(runDir, { mode: 0o711 });
  const identity = pool.claim(taskId);
  const plan = { identity, cgroupProcs: [], hidden: [work], readable: [], writable: [runDir], cwd: '/', env: {} };
  const child = spawnJailed(['/bin/sleep', '3600'], plan, ['ignore', 'ignore', 'ignore'], support.bwrap);
  return {
    stop: () => {
      child.kill('SIGKILL');
      pool.release(taskId);
    },
  };
}

/** Median start of a plain and a sandboxed task, interleaved, so a busy moment weighs on both alike. */
async function round(runs: number, from: number): Promise<{ a: number[]; b: number[] }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const x = await plain(from + i);
    const y = await sandboxed(from + i);
    if (i === 0) continue; // warm-up
    a.push(x);
    b.push(y);
  }
  return { a, b };
}

const { a, b } = await round(RUNS, 0);
console.log(`control groups: ${version ? `v${version}` : 'none'}; runs: ${RUNS}`);
console.log(`plain spawn   median ${median(a).toFixed(1)} ms, p90 ${p90(a).toFixed(1)} ms`);
console.log(`sandboxed     median ${median(b).toFixed(1)} ms, p90 ${p90(b).toFixed(1)} ms`);
console.log(
  `sandbox adds  ${(median(b) - median(a)).toFixed(1)} ms at the median (×${(median(b) / median(a)).toFixed(2)}); target < +20 ms`,
);

// Growth: the same starts while 1, 10 and 100 other sandboxed tasks run (uids claimed, namespaces held).
const base = median(b) - median(a);
let next = RUNS + 1;
for (const held of [1, 10, 100]) {
  const others = Array.from({ length: held }, (_, i) => hold(next + i));
  next += held;
  const r = await round(RUNS, next);
  next += RUNS + 1;
  for (const o of others) o.stop();
  const added = median(r.b) - median(r.a);
  console.log(
    `${String(held).padStart(3)} running   plain ${median(r.a).toFixed(1)} ms, sandboxed ${median(r.b).toFixed(1)} ms, ` +
      `adds ${added.toFixed(1)} ms (×${(added / base).toFixed(2)} of the quiet addition)`,
  );
}
rmSync(work, { recursive: true, force: true });
