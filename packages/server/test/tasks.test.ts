import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_ID } from '@crawldeck/shared';
import { startTestMaster, type TestMaster } from './harness.ts';
import { allLog, makeSpider, pidAlive, pidsWithArg, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1);
});
afterAll(async () => {
  await m?.close();
});

const PY_SPIDER = `
import os, sys, time
from crawldeck import save_item, save_items
print("starting", os.environ["CRAWLDECK_TASK_ID"], "param=" + " ".join(sys.argv[1:]))
print("ERROR: something failed")
print("stats log_count/ERROR: 3")
print("an exceptions, here", file=sys.stderr)
print("nothing wrong with errorless words")
print("GLOBAL_X=" + os.environ.get("SPIDER_ENV", "?"))
save_item({"title": "a", "n": 1})
save_items([{"title": "b, with comma", "n": 2}, {"title": 'quote "q"', "n": 3, "extra": True}])
print("done")
`;

describe('tasks on the embedded node', () => {
  it('registers the embedded node of type master with system info', async () => {
    const r = await m.api('GET', '/nodes');
    expect(r.status).toBe(200);
    const node = r.body.data[0];
    expect(node).toMatchObject({ type: 'master', is_master: true, status: 'online', enabled: true, max_runners: 8 });
    expect(node.systemInfo.num_cpu).toBeGreaterThan(0);
    // The list shows a summary of the host facts; the executables found are in the node's detail.
    expect(node.systemInfo.executables).toBeUndefined();
    const detail = (await m.api('GET', `/nodes/${node._id}`)).body.data;
    expect(detail.systemInfo.executables.map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining(['node', 'git']),
    );
    const sys = await waitFor('metrics', async () => {
      const s = await m.api('GET', `/nodes/${node._id}/system`);
      return s.body.data.metrics.length ? s.body.data : undefined;
    });
    expect(sys.metrics[0]).toHaveProperty('cpu');
  });

  it('runs a python spider: statuses, durations, env, logs with error flags, items', async () => {
    const spiderId = await makeSpider(
      m,
      'py-basic',
      'python3 main.py',
      { 'main.py': PY_SPIDER },
      { envs: [{ name: 'SPIDER_ENV', value: 'yes' }] },
    );
    const [taskId] = await runSpider(m, spiderId, { param: '--depth 2' });
    const t = await waitTask(m, taskId, ['finished', 'error']);
    expect(t.status).toBe('finished');
    expect(t).toMatchObject({
      spider_id: spiderId,
      spider_name: 'py-basic',
      run_type: 'random',
      exit_code: 0,
      result_count: 3,
      type: 'spider',
    });
    expect(t.node_id).not.toBe(EMPTY_ID);
    expect(t.node).toMatchObject({ type: 'master' });
    expect(t.spider).toMatchObject({ _id: spiderId, name: 'py-basic' });
    expect(JSON.stringify(t.spider)).not.toContain('git_password_enc');
    expect(t.cmd).toMatch(/main\.py --depth 2$/);
    expect(t.wait_duration).toBeGreaterThanOrEqual(0);
    expect(t.runtime_duration).toBeGreaterThan(0);
    expect(t.total_duration).toBe(t.wait_duration + t.runtime_duration);
    const lines = await allLog(m, taskId);
    const msgs = lines.map((l) => l.msg);
    expect(msgs[0]).toBe(`starting ${taskId} param=--depth 2`);
    expect(msgs).toContain('GLOBAL_X=yes');
    expect(lines.map((l) => l.line_no)).toEqual(lines.map((_, i) => i + 1));
    const flagged = lines.filter((l) => l.is_error).map((l) => l.msg);
    expect(flagged).toEqual(expect.arrayContaining(['ERROR: something failed', 'an exceptions, here']));
    expect(flagged).not.toContain('stats log_count/ERROR: 3');
    expect(flagged).not.toContain('nothing wrong with errorless words');
    const errLog = await m.api('GET', `/tasks/${taskId}/error-log`);
    expect(errLog.body.data.map((l: { msg: string }) => l.msg).sort()).toEqual([...flagged].sort());

    const results = await m.api('GET', `/tasks/${taskId}/results`, { query: { page_num: 1, page_size: 2 } });
    expect(results.body.total).toBe(3);
    expect(results.body.data).toHaveLength(2);
    expect(results.body.data[0]).toMatchObject({ title: 'a', n: 1, task_id: taskId });
    expect(typeof results.body.data[0]._id).toBe('string');

    const csv = await fetch(`${m.url}/api/tasks/${taskId}/results/download`, {
      headers: { authorization: m.adminToken },
    });
    // saved under the spider's name and the task id
    expect(csv.headers.get('content-disposition')).toBe(
      `attachment; filename="py-basic-${taskId}.csv"; filename*=UTF-8''py-basic-${taskId}.csv`,
    );
    const text = await csv.text();
    expect(text.split('\n')[0]).toBe('title,n,extra');
    expect(text).toContain('"b, with comma",2,');
    expect(text).toContain('"quote ""q""",3,true');
    const bom = Buffer.from(
      await (
        await fetch(`${m.url}/api/tasks/${taskId}/results/download?bom=1`, { headers: { authorization: m.adminToken } })
      ).arrayBuffer(),
    );
    expect([...bom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);

    const search = await m.api('GET', `/tasks/${taskId}/log`, { query: { keyword: 'error' } });
    expect(search.body.total).toBe(3);
    const page = await m.api('GET', `/tasks/${taskId}/log`, { query: { page_num: 2, page_size: 3 } });
    expect(page.body.data.map((l: { line_no: number }) => l.line_no)).toEqual([4, 5, 6]);
    expect(page.body.total).toBe(lines.length);

    const deploys = await m.api('GET', '/deploys', { query: { spider_id: spiderId } });
    expect(deploys.body.total).toBeGreaterThanOrEqual(1);
    expect(deploys.body.data[0]).toMatchObject({ spider_id: spiderId, files_total: 1, files_changed: 1 });
  });

  it('runs a node spider with the node SDK and dedupes items by field (ignore and overwrite)', async () => {
    const js = `const { saveItem, saveItems } = require('crawldeck');
saveItems([{ url: 'u1', v: 1 }, { url: 'u2', v: 1 }, { url: 'u1', v: 2 }]);
saveItem({ url: 'u3', v: process.argv[2] });
console.log('ok');`;
    const ignoreId = await makeSpider(
      m,
      'js-dedup',
      'node main.js',
      { 'main.js': js },
      { is_dedup: true, dedup_field: 'url', dedup_method: 'ignore', col: 'dedup_col' },
    );
    const [t1] = await runSpider(m, ignoreId, { param: 'x' });
    expect((await waitTask(m, t1, ['finished', 'error'])).status).toBe('finished');
    let r = await m.api('GET', `/tasks/${t1}/results`, { query: { page_size: 10 } });
    expect(r.body.data.map((d: { url: string; v: number }) => [d.url, d.v])).toEqual([
      ['u1', 1],
      ['u2', 1],
      ['u3', 'x'],
    ]);
    // A second run stores nothing new under ignore.
    const [t2] = await runSpider(m, ignoreId, { param: 'y' });
    await waitTask(m, t2, ['finished']);
    r = await m.api('GET', `/tasks/${t2}/results`);
    expect(r.body.total).toBe(0);

    const owId = await makeSpider(
      m,
      'js-overwrite',
      'node main.js',
      { 'main.js': js },
      { is_dedup: true, dedup_field: 'url', dedup_method: 'overwrite' },
    );
    const [t3] = await runSpider(m, owId, { param: 'x' });
    await waitTask(m, t3, ['finished']);
    r = await m.api('GET', `/tasks/${t3}/results`);
    expect(r.body.data.map((d: { url: string; v: number }) => [d.url, d.v]).sort()).toEqual([
      ['u1', 2],
      ['u2', 1],
      ['u3', 'x'],
    ]);
    const [t4] = await runSpider(m, owId, { param: 'z' });
    await waitTask(m, t4, ['finished']);
    r = await m.api('GET', `/tasks/${t4}/results`);
    expect(r.body.total).toBe(3);
    expect(r.body.data.find((d: { url: string }) => d.url === 'u3').v).toBe('z');
  });

  it('cuts a very long line with a marker instead of hanging', async () => {
    const id = await makeSpider(m, 'py-long', 'python3 main.py', {
      'main.py': 'print("z" * 300000)\nprint("after")\n',
    });
    const [t] = await runSpider(m, id);
    await waitTask(m, t, ['finished']);
    const lines = await allLog(m, t);
    expect(lines).toHaveLength(2);
    expect(lines[0].msg).toMatch(/^z{65536} … \[line cut at 65536 bytes\]$/);
    expect(lines[1].msg).toBe('after');
  });

  it('marks a failing command error with its exit code', async () => {
    const id = await makeSpider(m, 'sh-fail', 'sh -c "echo bye; exit 3"');
    const [t] = await runSpider(m, id);
    const task = await waitTask(m, t, ['finished', 'error']);
    expect(task).toMatchObject({ status: 'error', exit_code: 3, error: 'exit code 3' });
  });

  it('cancel kills the whole process group; restart makes a new task', async () => {
    // The child is found on the host by a word of its command line: inside its sandbox it has pids of its own.
    const token = `cancel-child-${process.pid}-${Date.now()}`;
    const id = await makeSpider(m, 'sh-long', 'sh run.sh', {
      'run.sh': `sh -c 'sleep 300; : ${token}' &\necho child started\nwait\n`,
    });
    const [t] = await runSpider(m, id);
    await waitTask(m, t, ['running']);
    await waitFor('child started', async () => (await allLog(m, t)).some((x) => x.msg === 'child started'));
    const children = await waitFor('child on the host', async () => {
      const p = pidsWithArg(token);
      return p.length ? p : undefined;
    });
    const task = (await m.api('GET', `/tasks/${t}`)).body.data;
    expect(pidAlive(task.pid)).toBe(true);
    const c = await m.api('POST', `/tasks/${t}/cancel`);
    expect(c.status).toBe(200);
    expect(c.body.data.status).toBe('cancelled');
    await waitFor('process group gone', async () => !pidsWithArg(token).length && !pidAlive(task.pid), 10_000);
    expect(children.some(pidAlive)).toBe(false);
    const after = await waitFor('final ack', async () => {
      const d = (await m.api('GET', `/tasks/${t}`)).body.data;
      return d.exit_code !== null || d.finish_ts ? d : undefined;
    });
    expect(after.status).toBe('cancelled');

    const rs = await m.api('POST', `/tasks/${t}/restart`);
    expect(rs.status).toBe(200);
    const [newId] = rs.body.data;
    expect(newId).not.toBe(t);
    await waitTask(m, newId, ['running']);
    const batch = await m.api('POST', '/tasks-cancel', { body: { ids: [newId] } });
    expect(batch.body.data.cancelled).toBe(1);
    await waitTask(m, newId, ['cancelled']);
  });

  it('lists with filters, deletes single and batch, answers 400/403/404', async () => {
    const id = await makeSpider(m, 'sh-ok', 'echo hi');
    const ids = [...(await runSpider(m, id)), ...(await runSpider(m, id)), ...(await runSpider(m, id))];
    for (const t of ids) await waitTask(m, t, ['finished']);
    const list = await m.api('GET', '/tasks', { query: { spider_id: id, page_size: 2 } });
    expect(list.body.total).toBe(3);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data[0]._id).toBe(ids[2]);
    const byStatus = await m.api('GET', '/tasks', { query: { spider_id: id, status: 'finished' } });
    expect(byStatus.body.total).toBe(3);
    expect((await m.api('GET', '/tasks', { query: { status: 'bogus' } })).status).toBe(400);
    const spiderTasks = await m.api('GET', `/spiders/${id}/tasks`);
    expect(spiderTasks.body.total).toBe(3);
    const node = (await m.api('GET', '/nodes')).body.data[0];
    const nodeTasks = await m.api('GET', `/nodes/${node._id}/tasks`);
    expect(nodeTasks.body.total).toBeGreaterThanOrEqual(3);

    const normal = await m.createUser('tasks-normal');
    // The spider is the admin's and private: a normal user neither lists nor reads its tasks.
    expect((await m.api('GET', '/tasks', { token: normal, query: { spider_id: id } })).body.total).toBe(0);
    // To them those tasks and the spider answer as unknown ids would.
    expect((await m.api('GET', `/tasks/${ids[0]}`, { token: normal })).status).toBe(404);
    expect((await m.api('GET', `/tasks/${ids[0]}/log`, { token: normal })).status).toBe(404);
    expect((await m.api('GET', `/tasks/${ids[0]}/results`, { token: normal })).status).toBe(404);
    expect((await m.api('PUT', '/tasks', { token: normal, body: { spider_id: id } })).status).toBe(404);
    await m.api('POST', `/spiders/${id}`, { body: { is_public: true } });
    expect((await m.api('GET', '/tasks', { token: normal, query: { spider_id: id } })).body.total).toBe(3);
    expect((await m.api('GET', `/tasks/${ids[0]}/log`, { token: normal })).status).toBe(200);
    expect((await m.api('DELETE', `/tasks/${ids[0]}`, { token: normal })).status).toBe(403);
    expect((await m.api('POST', `/tasks/${ids[0]}/restart`, { token: normal })).status).toBe(403);
    expect((await m.api('POST', `/nodes/${node._id}`, { token: normal, body: { name: 'x' } })).status).toBe(403);
    expect((await m.api('GET', '/nodes-join', { token: normal })).status).toBe(403);
    expect((await m.api('DELETE', `/tasks/${ids[0]}`)).status).toBe(200);
    expect((await m.api('GET', `/tasks/${ids[0]}`)).status).toBe(404);
    expect((await m.api('DELETE', '/tasks', { body: { ids: ids.slice(1) } })).body.data.deleted).toBe(2);
    expect((await m.api('GET', '/tasks', { query: { spider_id: id } })).body.total).toBe(0);
    expect((await m.api('GET', '/tasks/0123456789abcdef01234567')).status).toBe(404);
    expect((await m.api('PUT', '/tasks', { body: { spider_id: '0123456789abcdef01234567' } })).status).toBe(404);
    expect((await m.api('PUT', '/tasks', { body: { spider_id: 'nope' } })).status).toBe(400);
    expect(
      (await m.api('PUT', '/tasks', { body: { spider_id: id, run_type: 'selected-nodes', node_ids: [] } })).status,
    ).toBe(400);
    expect((await m.api('GET', '/tasks/0123456789abcdef01234567/log')).status).toBe(404);
    const join = await m.api('GET', '/nodes-join');
    expect(join.body.data.command).toMatch(
      /^curl -fsSL http:\/\/.+\/api\/node-install\/install\.sh \| sh && .+ --master http:\/\/\S+ --key-file \S+$/,
    );
  });

  it('runs several spiders at once with spiders-run and batch-restarts them', async () => {
    const a = await makeSpider(m, 'multi-a', 'echo a');
    const b = await makeSpider(m, 'multi-b', 'echo b');
    const r = await m.api('POST', '/spiders-run', {
      body: { task_params: [{ spider_id: a }, { spider_id: b, param: 'x' }], run_type: 'all-nodes' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(2);
    for (const t of r.body.data) await waitTask(m, t, ['finished']);
    const rs = await m.api('POST', '/tasks-restart', { body: { ids: r.body.data } });
    expect(rs.body.data).toHaveLength(2);
    for (const t of rs.body.data) await waitTask(m, t, ['finished']);
  });

  it('edits a node: disabled → unavailable and nothing is dispatched until enabled again', async () => {
    const node = (await m.api('GET', '/nodes')).body.data[0];
    const e = await m.api('POST', `/nodes/${node._id}`, {
      body: { enabled: false, description: 'local', name: 'main' },
    });
    expect(e.body.data).toMatchObject({ status: 'unavailable', enabled: false, description: 'local', name: 'main' });
    const id = await makeSpider(m, 'sh-wait', 'echo later');
    const [t] = await runSpider(m, id);
    await new Promise((r) => setTimeout(r, 500));
    expect((await m.api('GET', `/tasks/${t}`)).body.data.status).toBe('pending');
    await m.api('POST', `/nodes/${node._id}`, { body: { enabled: true } });
    await waitTask(m, t, ['finished']);
    expect((await m.api('DELETE', `/nodes/${node._id}`)).status).toBe(409);
  });

  it('keeps to max_runners: extra tasks wait pending, the full node is unavailable', async () => {
    const node = (await m.api('GET', '/nodes')).body.data[0];
    await m.api('POST', `/nodes/${node._id}`, { body: { max_runners: 1 } });
    const id = await makeSpider(m, 'sh-slot', 'sleep 0.4');
    const ids = [...(await runSpider(m, id)), ...(await runSpider(m, id)), ...(await runSpider(m, id))];
    await waitTask(m, ids[0], ['running']);
    expect((await m.api('GET', `/nodes/${node._id}`)).body.data.status).toBe('unavailable');
    let maxRunning = 0;
    for (;;) {
      const list = (await m.api('GET', '/tasks', { query: { spider_id: id, page_size: 10 } })).body.data as {
        status: string;
      }[];
      maxRunning = Math.max(maxRunning, list.filter((t) => t.status === 'running').length);
      if (list.every((t) => t.status === 'finished')) break;
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(maxRunning).toBe(1);
    const done = await Promise.all(ids.map((t) => m.api('GET', `/tasks/${t}`)));
    const starts = done.map((d) => Date.parse(d.body.data.start_ts)).sort();
    expect(starts[2] - starts[0]).toBeGreaterThanOrEqual(700);
    await m.api('POST', `/nodes/${node._id}`, { body: { max_runners: 8 } });
    expect((await m.api('GET', `/nodes/${node._id}`)).body.data.status).toBe('online');
  });

  it('refuses to delete a spider while its task runs (409), allows it afterwards', async () => {
    const id = await makeSpider(m, 'sh-guard', 'sleep 30');
    const [t] = await runSpider(m, id);
    await waitTask(m, t, ['running']);
    const del = await m.api('DELETE', `/spiders/${id}`);
    expect(del.status).toBe(409);
    expect(del.body.error).toMatch(/pending or running/);
    await m.api('POST', `/tasks/${t}/cancel`);
    await waitFor('process gone', async () => (await m.api('GET', `/tasks/${t}`)).body.data.exit_code !== null);
    expect((await m.api('DELETE', `/spiders/${id}`)).status).toBe(200);
    expect((await m.api('GET', `/tasks/${t}`)).status).toBe(404);
  });
});
