/**
 * A command naming a program the node does not have: the task says which program and which node, in its error, its
 * end reason and an error line of its log — not the shell's "Permission denied" of a sandboxed PATH.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, runSpider, waitNodes, waitTask } from './tasks.helpers.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1);
});
afterAll(async () => {
  await m?.close();
});

describe('a program missing on the node', () => {
  it('is named with the node in the error, the end reason and an error line of the log', async () => {
    const id = await makeSpider(m, 'go_example', 'go-crawldeck-absent run main.go', { 'main.go': 'package main\n' });
    const [t] = await runSpider(m, id);
    const task = await waitTask(m, t, ['finished', 'error'], 60_000);
    const node = task.node_name as string;
    expect(task.status).toBe('error');
    expect(task.exit_code).toBe(127);
    expect(task.error).toBe(`\`go-crawldeck-absent\`: command not found on node ${node}`);
    expect(task.end_reason).toEqual({ kind: 'command_not_found', program: 'go-crawldeck-absent', node });
    const errors = (await allLog(m, t)).filter((l) => l.is_error).map((l) => l.msg);
    expect(errors).toEqual([`error: \`go-crawldeck-absent\`: command not found on node ${node}`]);
    expect(task.error_log_count).toBe(1);
  });

  it('leaves a program that itself ends with 127 as an exit code', async () => {
    const id = await makeSpider(m, 'exits_127', 'sh -c "echo done; exit 127"');
    const [t] = await runSpider(m, id);
    const task = await waitTask(m, t, ['finished', 'error'], 60_000);
    expect(task.error).toBe('exit code 127');
    expect(task.end_reason).toEqual({ kind: 'exit_code', code: 127 });
  });
});
