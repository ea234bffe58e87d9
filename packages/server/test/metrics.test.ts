import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { gatePath, makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';

let m: TestMaster;
let hookServer: Server;
let hookUrl = '';
const gate = gatePath('metrics');
const hookCalls: string[] = [];

beforeAll(async () => {
  // A webhook receiver on loopback, so deliveries are real and succeed.
  hookServer = createServer((req, res) => {
    hookCalls.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as { port: number }).port}/hook`;
  m = await startTestMaster({ embeddedNode: true, outboundAllow: '127.0.0.0/8' });
  await waitNodes(m, 1);
});
afterAll(async () => {
  await m?.close();
  hookServer?.close();
  rmSync(gate, { force: true });
});

async function scrape(token: string | null = m.adminToken): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${m.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The value of one sample line (`name{labels} value`), 0 when the series is absent. */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** Prints n lines with one item each, then waits for the gate file, so the test sees it running. */
const EMIT_PY = `import json, os, sys, time
n = int(sys.argv[1])
with open(os.environ['CRAWLDECK_ITEMS'], 'a') as f:
    for i in range(n):
        print('line %d' % i, flush=True)
        f.write(json.dumps({'i': i}) + '\\n')
        f.flush()
    print('Traceback (most recent call last):', flush=True)
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.05)
`;

describe('GET /metrics', () => {
  it('is for administrators: 401 without a token, 403 for a normal user', async () => {
    expect((await scrape(null)).status).toBe(401);
    const user = await m.createUser('metrics-reader', 'reader-pass-1');
    expect((await scrape(user)).status).toBe(403);
  });

  it('moves with a run: tasks by status, running processes, lines and items ingested, queue wait, HTTP latency, deliveries', async () => {
    const hook = await m.api('PUT', '/webhooks', {
      body: { name: 'metrics', url: hookUrl, events: ['task_finished'] },
    });
    expect(hook.status).toBe(200);
    const before = await scrape();
    expect(before.status).toBe(200);
    expect(before.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(before.text).toContain('# TYPE crawldeck_tasks gauge');
    const finishedBefore = value(before.text, 'crawldeck_tasks{status="finished"}');

    const id = await makeSpider(m, 'metrics-emit', `python3 emit.py 40 ${gate}`, { 'emit.py': EMIT_PY });
    const [t] = await runSpider(m, id);
    const during = await waitFor(
      'the running task and its lines in the metrics',
      async () => {
        const s = await scrape();
        return value(s.text, 'crawldeck_tasks{status="running"}') === 1 &&
          value(s.text, 'crawldeck_items_ingested_total') >= 40
          ? s.text
          : undefined;
      },
      30_000,
      200,
    );
    const node = during.split('\n').find((l) => l.startsWith('crawldeck_node_running_tasks{'));
    expect(Number(node?.split(' ').at(-1))).toBe(1);
    expect(value(during, 'crawldeck_nodes{status="online"}')).toBe(1);
    expect(value(during, 'crawldeck_task_queue_wait_seconds_count')).toBe(
      value(before.text, 'crawldeck_task_queue_wait_seconds_count') + 1,
    );

    writeFileSync(gate, '');
    await waitTask(m, t, ['finished'], 30_000);
    const after = await waitFor(
      'the webhook delivery in the metrics',
      async () => {
        const s = await scrape();
        return value(s.text, 'crawldeck_webhook_deliveries_total{event="task_finished",result="ok"}') >= 1
          ? s.text
          : undefined;
      },
      30_000,
      200,
    );
    expect(value(after, 'crawldeck_tasks{status="finished"}')).toBe(finishedBefore + 1);
    expect(value(after, 'crawldeck_tasks{status="running"}')).toBe(0);
    expect(value(after, 'crawldeck_log_lines_ingested_total')).toBeGreaterThanOrEqual(41);
    expect(value(after, 'crawldeck_error_lines_ingested_total')).toBeGreaterThanOrEqual(1);
    expect(value(after, 'crawldeck_items_ingested_total')).toBe(40);
    expect(
      value(after, 'crawldeck_http_request_duration_seconds_count{method="PUT",route="/api/tasks",status="200"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(after, 'crawldeck_http_request_duration_seconds_count{method="GET",route="/metrics",status="200"}'),
    ).toBeGreaterThanOrEqual(2);
    expect(hookCalls.length).toBeGreaterThanOrEqual(1);
  });

  it('counts schedule fires and their lag', async () => {
    const id = await makeSpider(m, 'metrics-tick', 'python3 -c "print(1)"');
    const s = await m.api('PUT', '/schedules', { body: { name: 'every second', cron: '* * * * * *', spider_id: id } });
    expect(s.status).toBe(200);
    const text = await waitFor(
      'a schedule fire in the metrics',
      async () => {
        const got = await scrape();
        return value(got.text, 'crawldeck_schedule_fires_total{kind="cron",result="ok"}') >= 1 ? got.text : undefined;
      },
      20_000,
      200,
    );
    expect(value(text, 'crawldeck_schedule_fire_lag_seconds_count')).toBeGreaterThanOrEqual(1);
    expect((await m.api('POST', `/schedules/${s.body.data._id}/disable`)).status).toBe(200);
  });

  it('counts the runs of background jobs by name', async () => {
    // The spider purge job runs as soon as the master is ready, with nothing to purge.
    const text = await waitFor(
      'a run of the spider purge job in the metrics',
      async () => {
        const got = await scrape();
        return value(got.text, 'crawldeck_job_runs_total{job="spider-purge"}') >= 1 ? got.text : undefined;
      },
      20_000,
      100,
    );
    expect(value(text, 'crawldeck_job_failures_total{job="spider-purge"}')).toBe(0);
    expect(value(text, 'crawldeck_job_failing_runs{job="spider-purge"}')).toBe(0);
    expect(text).toContain('crawldeck_job_last_run_seconds{job="spider-purge"}');
    expect(text).toContain('# TYPE crawldeck_job_runs_total counter');
  });
});
