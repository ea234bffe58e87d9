import type { NodeInfo, ScheduleInfo, TaskInfo } from '@crawldeck/shared';
import type { ApiClient } from '../api-client.ts';
import { duration, printRows, when, type Output } from '../output.ts';
import { resolveSpider } from './spiders.ts';

export async function tasks(
  api: ApiClient,
  opts: { spider?: string; status?: string; limit: string },
  out: Output,
): Promise<void> {
  const spiderId = opts.spider ? (await resolveSpider(api, opts.spider))._id : undefined;
  const { data } = await api.call<TaskInfo[]>('GET', '/tasks', {
    query: { spider_id: spiderId, status: opts.status, page_size: Number(opts.limit) || 20 },
  });
  printRows(out, data, [
    ['Task', (t) => t._id],
    ['Spider', (t) => t.spider_name],
    ['Node', (t) => t.node_name],
    ['Status', (t) => t.status],
    ['Results', (t) => t.result_count],
    ['Errors', (t) => t.error_log_count],
    ['Created', (t) => when(t.create_ts)],
    ['Runtime', (t) => duration(t.runtime_duration)],
  ]);
}

export async function schedules(api: ApiClient, out: Output): Promise<void> {
  const { data } = await api.call<ScheduleInfo[]>('GET', '/schedules', { query: { page_size: 1000 } });
  printRows(out, data, [
    ['Schedule', (s) => s._id],
    ['Name', (s) => s.name],
    ['Spider', (s) => s.spider_name],
    ['Cron', (s) => s.cron],
    ['Enabled', (s) => s.enabled],
    ['Status', (s) => s.status],
    ['Next run', (s) => when(s.next_run_ts)],
    ['Last run', (s) => when(s.last_run_ts)],
  ]);
}

export async function nodes(api: ApiClient, out: Output): Promise<void> {
  const { data } = await api.call<NodeInfo[]>('GET', '/nodes');
  printRows(out, data, [
    ['Node', (n) => n._id],
    ['Name', (n) => n.name],
    ['Type', (n) => (n.is_master ? 'master' : 'worker')],
    ['Status', (n) => n.status],
    ['Enabled', (n) => n.enabled],
    ['Running', (n) => `${n.running}/${n.max_runners}`],
    ['IP', (n) => n.ip],
    ['Last seen', (n) => when(n.last_seen_ts)],
  ]);
}
