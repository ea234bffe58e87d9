import { Type, type Static } from '@sinclair/typebox';
import { Int, Str } from './bounds.ts';

/** Settings → General (admin part), Database and API tokens (spec §2 Settings tabs). */
export const UpdateSettingBody = Type.Object({
  enable_tutorial: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('N')])),
  /** Third-party usage-statistics endpoint (http/https URL); '' turns forwarding off. */
  stats_endpoint: Type.Optional(Str(2000)),
  /** Whether anyone may sign up without an administrator. */
  allow_signup: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('N')])),
  /** CIDR ranges (comma, space or line separated) the master may reach for users besides public addresses. */
  outbound_allow: Type.Optional(Str(4000)),
  /** Whether normal users' tasks may run on the master's own node while worker nodes exist. */
  user_tasks_on_master: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('N')])),
});
export type UpdateSettingBody = Static<typeof UpdateSettingBody>;

/** GET /system/setting (admin): every system setting, including the non-public ones. */
export interface AdminSetting {
  enable_tutorial: 'Y' | 'N';
  stats_endpoint: string;
  allow_signup: 'Y' | 'N';
  outbound_allow: string;
  /**
   * 'N' (default): while any enabled worker node exists, tasks started by normal users never run on the master's
   * own node (which shares the master's host). With no worker node they run there, isolated like everywhere.
   */
  user_tasks_on_master: 'Y' | 'N';
}

export interface DatabaseTableCount {
  table: string;
  rows: number;
  /** PostgreSQL: planner estimate for very large tables instead of a full count. */
  approximate: boolean;
}

export interface DatabaseInfo {
  engine: 'sqlite' | 'postgres';
  /** File path or database URL without password. */
  location: string;
  /** SQLite: file + WAL; PostgreSQL: pg_database_size. */
  size_bytes: number;
  health: { ok: boolean; latency_ms: number; error?: string };
  tables: DatabaseTableCount[];
  /** Task logs of tasks finished longer ago than this are deleted (0 keeps them forever). */
  log_retention_days: number;
  last_cleanup: { at: string; deleted: number } | null;
}

export const UpdateDatabaseBody = Type.Object({
  log_retention_days: Int(0, 36500),
});
export type UpdateDatabaseBody = Static<typeof UpdateDatabaseBody>;

export interface CleanupResult {
  /** task_logs rows deleted. */
  deleted: number;
  /** False when the retention is 0 or the task tables do not exist yet. */
  ran: boolean;
}

export interface ApiToken {
  _id: string;
  name: string;
  create_ts: string | null;
  last_used_ts: string | null;
  expire_ts: string | null;
}

export const CreateTokenBody = Type.Object({
  name: Str(100, { minLength: 1 }),
  /** Omitted or 0: never expires. */
  expire_days: Type.Optional(Int(0, 3650)),
});
export type CreateTokenBody = Static<typeof CreateTokenBody>;

/** PUT /tokens answer: the raw token, shown once and never again. */
export interface CreatedToken extends ApiToken {
  token: string;
}

export interface ActionSummaryRow {
  type: string;
  count: number;
  users: number;
}
