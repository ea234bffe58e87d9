import { Type, type Static } from '@sinclair/typebox';
import { Int, Str } from './bounds.ts';
import { IsoTime, Nullable } from './responses.ts';

/** Settings → General (admin part), Database and API tokens. */
export const UpdateSettingBody = Type.Object({
  enable_tutorial: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('N')])),
  /** Third-party usage-statistics endpoint (http/https URL); '' turns forwarding off. */
  stats_endpoint: Type.Optional(Str(2000)),
  /** Whether anyone may sign up without an administrator ('N', closed, until an administrator opens it). */
  allow_signup: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('N')])),
  /** CIDR ranges (comma, space or line separated) the master may reach for users besides public addresses. */
  outbound_allow: Type.Optional(Str(4000)),
  /** Whether normal users' tasks may run on the master's own node while worker nodes exist. */
  user_tasks_on_master: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('N')])),
  /** Whether normal users' tasks may run on nodes that cannot sandbox them. */
  user_tasks_unsandboxed: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('N')])),
  /** The console's address as people open it (http/https URL); notifications link back to it. '' = no links. */
  public_url: Type.Optional(Str(2000)),
  /** Whether a new node may join with the shared node key (and so get a key of its own). */
  node_join_shared_key: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('N')])),
});
export type UpdateSettingBody = Static<typeof UpdateSettingBody>;

const YesNo = Type.Union([Type.Literal('Y'), Type.Literal('N')]);

/** GET /system/setting (admin): every system setting, including the non-public ones. */
export const AdminSetting = Type.Object({
  enable_tutorial: YesNo,
  stats_endpoint: Type.String(),
  allow_signup: YesNo,
  outbound_allow: Type.String(),
  /**
   * 'N' (default): while any enabled worker node exists, tasks started by normal users never run on the master's
   * own node (which shares the master's host). With no worker node they run there, isolated like everywhere.
   */
  user_tasks_on_master: YesNo,
  /**
   * 'N' (default): tasks started by normal users run only on nodes that sandbox every task (systemInfo.sandbox);
   * 'Y' lets them run on nodes without a sandbox too, where they share a uid and see each other.
   */
  user_tasks_unsandboxed: YesNo,
  /**
   * 'Y' (default): a new node joins with the shared node key and is given a key of its own, which it uses from then
   * on. 'N': the shared key is refused; nodes that have their own key keep working.
   */
  node_join_shared_key: YesNo,
  public_url: Type.String(),
});
export type AdminSetting = Static<typeof AdminSetting>;

export const DatabaseTableCount = Type.Object({
  table: Type.String(),
  rows: Type.Number(),
  /** PostgreSQL: planner estimate for very large tables instead of a full count. */
  approximate: Type.Boolean(),
});
export type DatabaseTableCount = Static<typeof DatabaseTableCount>;

export const DatabaseInfo = Type.Object({
  engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  /** File path or database URL without password. */
  location: Type.String(),
  /** SQLite: file + WAL; PostgreSQL: pg_database_size. */
  size_bytes: Type.Number(),
  health: Type.Object({ ok: Type.Boolean(), latency_ms: Type.Number(), error: Type.Optional(Type.String()) }),
  tables: Type.Array(DatabaseTableCount),
  /** Task logs of tasks finished longer ago than this are deleted (0 keeps them forever). */
  log_retention_days: Type.Number(),
  last_cleanup: Nullable(Type.Object({ at: Type.String(), deleted: Type.Number() })),
});
export type DatabaseInfo = Static<typeof DatabaseInfo>;

export const UpdateDatabaseBody = Type.Object({
  log_retention_days: Int(0, 36500),
});
export type UpdateDatabaseBody = Static<typeof UpdateDatabaseBody>;

export const CleanupResult = Type.Object({
  /** task_logs rows deleted. */
  deleted: Type.Number(),
  /** False when the retention is 0 or the task tables do not exist yet. */
  ran: Type.Boolean(),
});
export type CleanupResult = Static<typeof CleanupResult>;

/** A personal API token as listed: never the token itself. */
export const ApiToken = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  create_ts: IsoTime,
  last_used_ts: IsoTime,
  expire_ts: IsoTime,
});
export type ApiToken = Static<typeof ApiToken>;

export const CreateTokenBody = Type.Object({
  name: Str(100, { minLength: 1 }),
  /** Omitted or 0: never expires. */
  expire_days: Type.Optional(Int(0, 3650)),
  /** Revokes the user's other API tokens of this name in the same step (each CLI login replaces its last one). */
  replace: Type.Optional(Type.Boolean()),
});
export type CreateTokenBody = Static<typeof CreateTokenBody>;

/** PUT /tokens answer: the raw token, shown once and never again. */
export const CreatedToken = Type.Composite([ApiToken, Type.Object({ token: Type.String() })]);
export type CreatedToken = Static<typeof CreatedToken>;
