import { HOME_STATS_DAYS, lastDays, type HomeStats } from '@crawldeck/shared';
import type { Store } from '../../store/db.ts';
import { countRows, existingTables } from '../database/database.store.ts';
import { onlineNodeCount, taskDailyCounts, taskStatusCounts } from './stats.store.ts';

const DAY_MS = 86400_000;
const TABLES = ['tasks', 'nodes', 'deploys', 'spiders', 'projects'] as const;

/**
 * Everything the dashboard shows, from one catalogue lookup and a handful of aggregate queries: the task total is
 * the sum of the per-status counts (kept by the store on SQLite, one GROUP BY on PostgreSQL), and the daily
 * series reads only the last 30 days through the create_ts index. Tables another feature has not created yet count 0.
 */
export async function homeStats(store: Store, tzOffsetMin = 0, now = Date.now()): Promise<HomeStats> {
  const present = await existingTables(store, TABLES);
  const days = lastDays(now, HOME_STATS_DAYS, tzOffsetMin);
  const offMs = tzOffsetMin * 60_000;
  const firstDay = Math.floor((now + offMs) / DAY_MS) - HOME_STATS_DAYS + 1;
  const since = firstDay * DAY_MS - offMs;

  const statusQ = present.has('tasks') ? taskStatusCounts(store) : Promise.resolve([]);
  const dailyQ = present.has('tasks') ? taskDailyCounts(store, offMs, since) : Promise.resolve([]);
  const nodesQ = present.has('nodes') ? onlineNodeCount(store) : Promise.resolve(0);
  const maybeCount = (t: string) => (present.has(t) ? countRows(store, t) : Promise.resolve(0));

  const [status, daily, nodesActive, deploys, spiders, projects] = await Promise.all([
    statusQ,
    dailyQ,
    nodesQ,
    maybeCount('deploys'),
    maybeCount('spiders'),
    maybeCount('projects'),
  ]);
  const byDay = new Map(daily.map((r) => [Number(r.d), Number(r.n)]));
  return {
    tasks: status.reduce((sum, r) => sum + Number(r.n), 0),
    nodes_active: nodesActive,
    deploys,
    spiders,
    projects,
    daily: days.map((date, i) => ({ date, tasks: byDay.get(firstDay + i) ?? 0 })),
    status: status.map((r) => ({ status: String(r.status), count: Number(r.n) })).sort((a, b) => b.count - a.count),
  };
}
