import { Type, type Static } from '@sinclair/typebox';
import { Int } from './bounds.ts';

/** Dashboard: one call, everything the home page shows. */
export const HOME_STATS_DAYS = 30;

export const HomeStatsQuery = Type.Object({
  /** Client's offset from UTC in minutes (e.g. 480 for UTC+8), so days are the user's calendar days. */
  tz_offset: Type.Optional(Int(-840, 840)),
});
export type HomeStatsQuery = Static<typeof HomeStatsQuery>;

export const HomeStats = Type.Object({
  tasks: Type.Number(),
  nodes_active: Type.Number(),
  deploys: Type.Number(),
  spiders: Type.Number(),
  projects: Type.Number(),
  /** Last 30 days, oldest first, zero-filled; date is YYYY-MM-DD in the requested offset. */
  daily: Type.Array(Type.Object({ date: Type.String(), tasks: Type.Number() })),
  status: Type.Array(Type.Object({ status: Type.String(), count: Type.Number() })),
});
export type HomeStats = Static<typeof HomeStats>;

/** The last `days` calendar dates (YYYY-MM-DD) ending today, in a zone `tzOffsetMin` minutes east of UTC. */
export function lastDays(now: number, days: number, tzOffsetMin = 0): string[] {
  const dayMs = 86400_000;
  const today = Math.floor((now + tzOffsetMin * 60_000) / dayMs);
  const out: string[] = [];
  for (let d = today - days + 1; d <= today; d++) out.push(new Date(d * dayMs).toISOString().slice(0, 10));
  return out;
}
