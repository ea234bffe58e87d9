import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@crawldeck/shared';
import { ADMIN_PASSWORD, startTestMaster, type TestMaster } from '../../server/test/harness.ts';
import { makeSpider, waitNodes, waitTask } from '../../server/test/tasks.helpers.ts';
import { spawnNode, type ChildNode } from '../../server/test/nodes.helpers.ts';
import { runCli, runCliFirstLine, type CliOptions } from './cli.helpers.ts';

/**
 * The CLI's task commands on a master with two nodes (its own and a worker): JSON-only output of a followed run,
 * node-prefixed lines of a run on every node, cancel, and a log read by a reader that stops after one line.
 */
let m: TestMaster;
let worker: ChildNode | undefined;
let home: string;
let talkId: string;
let waitId: string;
const cli = (args: string[], opts: CliOptions = {}) => runCli(home, args, opts);

/** Prints `line 0` … `line N-1` (N its argument), then ends. */
const TALK = 'import sys\nfor i in range(int(sys.argv[1])):\n    print(f"line {i}", flush=True)\n';
/** Waits until it is cancelled. */
const WAIT = 'import time\nprint("waiting", flush=True)\nwhile True:\n    time.sleep(1)\n';

interface JsonLine {
  type: string;
  [k: string]: unknown;
}
const jsonLines = (stdout: string): JsonLine[] =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as JsonLine);

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true, nodeKey: 'cli-node-key' });
  worker = spawnNode(m.url, 'cli-node-key', 'cli-worker');
  await waitNodes(m, 2, 60_000);
  home = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-cli-tasks-'));
  talkId = await makeSpider(m, 'talk', 'python3 talk.py', { 'talk.py': TALK });
  waitId = await makeSpider(m, 'waiter', 'python3 wait.py', { 'wait.py': WAIT });
  const login = await cli(['login', '--url', m.url, '-u', 'admin', '--password-stdin'], {
    input: `${ADMIN_PASSWORD}\n`,
  });
  expect(login.code, login.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  if (worker && worker.proc.exitCode === null) {
    const exited = new Promise((r) => worker!.proc.once('exit', r));
    worker.proc.kill('SIGKILL');
    await exited;
  }
  await m?.close();
  if (worker) rmSync(worker.dataDir, { recursive: true, force: true });
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('crawldeck run, logs and cancel', () => {
  it('--json run --follow prints only JSON: started, one object per log line, a final summary', async () => {
    const r = await cli(['--json', 'run', 'talk', '--param', '3', '--node', 'cli-worker', '--follow']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = jsonLines(r.stdout);
    const [started, ...rest] = lines;
    const summary = rest.pop()!;
    expect(started).toMatchObject({ type: 'started', spider_id: talkId });
    const taskId = (started.task_ids as string[])[0];
    expect(rest.map((l) => [l.type, l.task_id, l.node, l.msg])).toEqual(
      [0, 1, 2].map((i) => ['log', taskId, 'cli-worker', `line ${i}`]),
    );
    expect(summary).toMatchObject({ type: 'summary', exit_code: 0, tasks: [{ _id: taskId, status: 'finished' }] });

    const logs = await cli(['logs', taskId, '--follow', '--json']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stderr).toBe('');
    const followed = jsonLines(logs.stdout);
    const expected = [0, 1, 2].map((i) => ['log', taskId, 'cli-worker', i + 1, `line ${i}`]);
    const fields = (l: JsonLine) => [l.type, l.task_id, l.node, l.line_no, l.msg];
    expect(followed.slice(0, -1).map(fields)).toEqual(expected);
    expect(followed.at(-1)).toMatchObject({ type: 'summary', exit_code: 0, task: { _id: taskId } });
    const stored = await cli(['logs', taskId, '--json']);
    expect(stored.code, stored.stderr).toBe(0);
    expect(jsonLines(stored.stdout).map(fields)).toEqual(expected);
  }, 120_000);

  it('run --all-nodes --follow starts each line with its node name', async () => {
    const names = ((await m.api('GET', '/nodes')).body.data as { name: string }[]).map((n) => n.name);
    const r = await cli(['run', 'talk', '--param', '2', '--all-nodes', '--follow']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Started tasks \w{24}, \w{24} of talk: python3 talk.py 2\n/);
    expect(r.stdout.trimEnd().split('\n').sort()).toEqual(
      names.flatMap((n) => [`[${n}] line 0`, `[${n}] line 1`]).sort(),
    );
  }, 120_000);

  it('cancel stops a running task and reports one that ended and one that does not exist', async () => {
    const started = JSON.parse((await cli(['--json', 'run', 'waiter'])).stdout) as {
      spider_id: string;
      task_ids: string[];
    };
    expect(started.spider_id).toBe(waitId);
    const running = started.task_ids[0];
    await waitTask(m, running, ['running'], 60_000);
    const finished = (
      (await m.api('GET', '/tasks', { query: { status: 'finished' } })).body.data as { _id: string }[]
    )[0]._id;
    const ghost = newId();

    const r = await cli(['--json', 'cancel', running, finished, ghost]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([
      { task: running, outcome: 'cancelled', status: 'cancelled', message: 'cancelled (was running)' },
      { task: finished, outcome: 'ended', status: 'finished', message: 'already finished' },
      { task: ghost, outcome: 'failed', status: null, message: expect.stringMatching(/not found/i) as string },
    ]);
    expect((await m.api('GET', `/tasks/${running}`)).body.data.status).toBe('cancelled');

    const table = await cli(['cancel', finished]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${finished}.*already finished`));
    const bad = await cli(['cancel', 'not-a-task']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/not-a-task.*is not a task id/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);

  it('logs of a long task print whole, and end quietly with exit code 0 for a reader that closes after one line', async () => {
    const r = await cli(['--json', 'run', 'talk', '--param', '50000', '--follow']);
    expect(r.code, r.stderr).toBe(0);
    const run = jsonLines(r.stdout);
    const taskId = (run[0].task_ids as string[])[0];
    expect(run.filter((l) => l.type === 'log')).toHaveLength(50_000);
    for (const args of [
      ['logs', taskId],
      ['logs', taskId, '--follow'],
    ]) {
      const whole = await cli(args);
      expect(whole.code, whole.stderr).toBe(0);
      const lines = whole.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(50_000);
      expect(lines.at(-1)).toBe('line 49999');
    }
    const plain = await runCliFirstLine(home, ['logs', taskId]);
    expect(plain).toEqual({ code: 0, stdout: 'line 0\n', stderr: '' });
    const followed = await runCliFirstLine(home, ['logs', taskId, '--follow']);
    expect(followed).toEqual({ code: 0, stdout: 'line 0\n', stderr: '' });
  }, 180_000);
});
