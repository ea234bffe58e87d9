import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';
import { spawnNode, type ChildNode } from './nodes.helpers.ts';

process.env.CRAWLDECK_NODE_HEARTBEAT_SECONDS = '0.5';

// The node's data dir (its spool) is a 2 MiB tmpfs of its own; we run as root, like CI.
const disk = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-spool-disk-'));
const filler = path.join(disk, 'filler');
let mounted = false;
let m: TestMaster;
let node: ChildNode;
let nodeId = '';
let flood = '';
let small = '';

beforeAll(async () => {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', disk]);
  mounted = true;
  m = await startTestMaster({ embeddedNode: false, nodeKey: 'disk-key' });
  node = spawnNode(m.url, 'disk-key', 'tight', [], disk);
  nodeId = (await waitNodes(m, 1, 30_000))[0]._id;
  // 2 MB of output: more than the disk holds.
  flood = await makeSpider(m, 'flood', 'python3 main.py', {
    'main.py': 'for i in range(20000):\n    print("%05d " % i + "x" * 94)\n',
  });
  small = await makeSpider(m, 'small', 'python3 main.py', {
    'main.py':
      'from crawldeck import save_item\nfor i in range(2000):\n    print("line %d" % i)\n    save_item({"i": i})\n',
  });
});
afterAll(async () => {
  node?.proc.kill('SIGKILL');
  if (node) await new Promise((r) => (node.proc.exitCode !== null ? r(null) : node.proc.once('exit', r)));
  await m?.close();
  if (mounted) execFileSync('umount', ['-l', disk]);
  rmdirSync(disk);
});

/** The node process is alive and the master keeps hearing its heartbeats. */
async function nodeAnswers(): Promise<void> {
  expect(node.proc.exitCode).toBeNull();
  const since = Date.now();
  await waitFor(
    'a heartbeat',
    async () => {
      const n = (await m.api('GET', `/nodes/${nodeId}`)).body.data;
      return n.status === 'online' && Date.parse(n.last_seen_ts) > since;
    },
    10_000,
  );
}

/** A small task runs through with every line and item: the node recovered. */
async function smallTaskSucceeds(): Promise<void> {
  const [t] = await runSpider(m, small, { run_type: 'selected-nodes', node_ids: [nodeId] });
  const done = await waitTask(m, t, ['finished', 'error'], 30_000);
  expect({
    status: done.status,
    error: done.error,
    log_count: done.log_count,
    result_count: done.result_count,
  }).toEqual({ status: 'finished', error: '', log_count: 2000, result_count: 2000 });
  expect((await allLog(m, t)).at(-1)?.msg).toBe('line 1999');
}

describe('the node spool on a full or read-only disk', () => {
  it('a full spool disk fails the task with a clear error; the node stays up and runs the next task once space returns', async () => {
    const s = statfsSync(disk);
    writeFileSync(filler, Buffer.alloc(Math.max(0, s.bavail * s.bsize - 256 * 1024)));
    const [t] = await runSpider(m, flood, { run_type: 'selected-nodes', node_ids: [nodeId] });
    const failed = await waitTask(m, t, ['finished', 'error'], 60_000);
    expect(failed.status).toBe('error');
    expect(failed.error).toMatch(/spool disk is full \(ENOSPC/);
    // What fit on the disk was shipped.
    expect(failed.log_count).toBeGreaterThan(0);
    expect(failed.log_count).toBeLessThan(20000);
    await nodeAnswers();
    rmSync(filler);
    await smallTaskSucceeds();
  });

  it('a read-only spool disk fails the task with a clear error; the node stays up and recovers when it is writable again', async () => {
    execFileSync('mount', ['-o', 'remount,ro', disk]);
    try {
      const [t] = await runSpider(m, small, { run_type: 'selected-nodes', node_ids: [nodeId] });
      const failed = await waitTask(m, t, ['finished', 'error'], 30_000);
      expect(failed.status).toBe('error');
      expect(failed.error).toMatch(/spool disk is read-only \(EROFS\)/);
      await nodeAnswers();
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', disk]);
    }
    await smallTaskSucceeds();
  });
});
