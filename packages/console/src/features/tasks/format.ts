/** Display helpers of the task screens. */
import { useEffect, useState } from 'react';
import dayjs from 'dayjs';
import { EMPTY_ID, type TaskInfo } from '@crawldeck/shared';

export const STATUS_COLORS: Record<string, string> = {
  pending: 'default',
  running: 'processing',
  finished: 'success',
  error: 'error',
  cancelled: 'warning',
  abnormal: 'magenta',
  na: 'default',
};

export const ACTIVE_STATUSES = ['pending', 'running'];

export function isEmptyId(id: string | null | undefined): boolean {
  return !id || id === EMPTY_ID || /^0+$/.test(id);
}

export function formatTs(ts: string | null | undefined): string {
  return ts ? dayjs(ts).format('YYYY-MM-DD HH:mm:ss') : '-';
}

/** The time of day of a moment, HH:MM:SS ('-' when there is none). */
export function formatClock(ts: string | null | undefined): string {
  return ts ? dayjs(ts).format('HH:mm:ss') : '-';
}

/** 1h 02m 03s / 2m 03s / 3.4s / 120ms */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms)) return '-';
  if (ms < 0) ms = 0;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h ? `${h}h ${pad(m)}m ${pad(sec)}s` : `${m}m ${pad(sec)}s`;
}

/** Durations of a task, recomputed against `now` for tasks that are still waiting or running. */
export function durations(
  t: TaskInfo,
  now: number,
): { wait: number | null; runtime: number | null; total: number | null } {
  if (!ACTIVE_STATUSES.includes(t.status))
    return { wait: t.wait_duration, runtime: t.runtime_duration, total: t.total_duration };
  const create = t.create_ts ? Date.parse(t.create_ts) : NaN;
  const start = t.start_ts ? Date.parse(t.start_ts) : NaN;
  return {
    wait: Number.isFinite(start) ? start - create : now - create,
    runtime: Number.isFinite(start) ? now - start : null,
    total: now - create,
  };
}

/** A clock ticking every `ms` while `on` (local only: durations of running tasks, no server calls). */
export function useNow(on: boolean, ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [on, ms]);
  return now;
}

export function formatBytes(n: number): string {
  if (!n) return '0 B';
  const u = ['B', 'KB', 'MB', 'GB', 'TB'];
  const i = Math.min(u.length - 1, Math.floor(Math.log(n) / Math.log(1024)));
  return `${(n / 1024 ** i).toFixed(i ? 1 : 0)} ${u[i]}`;
}
