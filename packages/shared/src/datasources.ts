import { Type, type Static } from '@sinclair/typebox';
import { Int, Str } from './bounds.ts';
import { Envelope } from './paging.ts';

/**
 * Results data sources: where a spider's items are written. The built-in store is always there (id '' in a
 * spider's settings); an administrator adds PostgreSQL and MySQL/MariaDB connections. The password is write-only:
 * answers only say whether one is stored.
 */
export const DATA_SOURCE_TYPES = ['postgres', 'mysql'] as const;
export type DataSourceType = (typeof DATA_SOURCE_TYPES)[number];

/** The built-in store's id in lists and in a spider's `data_source_id`. */
export const BUILTIN_DATA_SOURCE_ID = '';

/** Table and column names a target database accepts from us (PostgreSQL allows 63 bytes, MySQL 64 characters). */
export const TABLE_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,62}$';
export const MAX_IDENTIFIER_LENGTH = 63;

export const DataSourceTls = Type.Object({
  enabled: Type.Boolean(),
  /** Check the server's certificate against the CA (or the system's CAs); off accepts any certificate. */
  verify: Type.Boolean(),
  /** PEM of the CA that signed the server's certificate; '' uses the system's CAs. */
  ca: Str(20_000),
});
export type DataSourceTls = Static<typeof DataSourceTls>;

const dataSourceFields = {
  name: Str(100, { minLength: 1 }),
  type: Type.Union(DATA_SOURCE_TYPES.map((t) => Type.Literal(t))),
  host: Str(255, { minLength: 1, pattern: '^[A-Za-z0-9.:_\\-\\[\\]]+$' }),
  port: Int(1, 65535),
  database: Str(63, { minLength: 1, pattern: '^[^\\u0000/\\\\]+$' }),
  username: Str(100),
  /** Write-only. A non-empty string sets it, null clears it, '' or absent keeps the stored one. */
  password: Type.Union([Str(1000), Type.Null()]),
  /** PostgreSQL schema of the results tables ('' = public); unused for MySQL. */
  schema: Str(63, { pattern: '^([A-Za-z_][A-Za-z0-9_]{0,62})?$' }),
  tls: DataSourceTls,
};

const { name, type, host, port, database, ...optional } = dataSourceFields;
export const CreateDataSourceBody = Type.Composite([
  Type.Object({ name, type, host, port, database }),
  Type.Partial(Type.Object(optional)),
]);
export type CreateDataSourceBody = Static<typeof CreateDataSourceBody>;

export const UpdateDataSourceBody = Type.Partial(Type.Object(dataSourceFields));
export type UpdateDataSourceBody = Static<typeof UpdateDataSourceBody>;

/** Test connection of unsaved settings; with `id`, a missing password is the stored one of that data source. */
export const TestDataSourceBody = Type.Composite([CreateDataSourceBody, Type.Object({ id: Type.Optional(Str(24)) })]);
export type TestDataSourceBody = Static<typeof TestDataSourceBody>;

export const DataSourceInfo = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  type: Type.Union([Type.Literal('builtin'), ...DATA_SOURCE_TYPES.map((t) => Type.Literal(t))]),
  host: Type.String(),
  port: Type.Integer(),
  database: Type.String(),
  username: Type.String(),
  password_set: Type.Boolean(),
  schema: Type.String(),
  tls: DataSourceTls,
  /** Spiders whose items go here (a data source in use cannot be deleted). */
  spiders: Type.Integer(),
  create_ts: Type.Union([Type.String(), Type.Null()]),
  update_ts: Type.Union([Type.String(), Type.Null()]),
});
export type DataSourceInfo = Static<typeof DataSourceInfo>;

export const DataSourceTestResult = Type.Object({
  ok: Type.Boolean(),
  latency_ms: Type.Number(),
  /** The driver's message when the connection failed. */
  error: Type.String(),
  /** The server's version string when it answered. */
  version: Type.String(),
});
export type DataSourceTestResult = Static<typeof DataSourceTestResult>;

/** The answer envelope of a route, as a response schema (fields outside it are not sent). */
export const DataSourceEnvelope = Envelope(DataSourceInfo);
export const DataSourceListEnvelope = Envelope(Type.Array(DataSourceInfo));
export const DataSourceTestEnvelope = Envelope(DataSourceTestResult);

/** Result download formats; csv is the default. */
export const RESULT_FORMATS = ['csv', 'json', 'jsonl', 'xlsx'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

/**
 * GET /tasks/{id}/results/download: the format and, for CSV, a UTF-8 byte order mark (`bom=1`) for Excel, and
 * whether text cells that a spreadsheet would run as formulas (starting with = + - @, tab or carriage return) get a
 * leading single quote: yes unless `neutralise=0`.
 */
export const ResultsExportQuery = Type.Object({
  format: Type.Optional(Type.Union(RESULT_FORMATS.map((f) => Type.Literal(f)))),
  bom: Type.Optional(Str(10)),
  neutralise: Type.Optional(Type.Union([Type.Literal('0'), Type.Literal('1')])),
});
export type ResultsExportQuery = Static<typeof ResultsExportQuery>;

/** A spider's results target, as its settings carry it. */
export const SpiderTargetBody = Type.Object({
  /** '' = the built-in store. */
  data_source_id: Str(24, { pattern: '^([0-9a-f]{24})?$' }),
  /** '' = the results collection name (col), made a valid table name. */
  result_table: Str(MAX_IDENTIFIER_LENGTH, { pattern: `^(${TABLE_NAME_PATTERN.slice(1, -1)})?$` }),
});
export type SpiderTargetBody = Static<typeof SpiderTargetBody>;

export const SpiderTargetInfo = Type.Object({
  data_source_id: Type.String(),
  result_table: Type.String(),
  /** The table later tasks write into ('' for the built-in store). */
  table: Type.String(),
});
export type SpiderTargetInfo = Static<typeof SpiderTargetInfo>;

/** Where a task's items went (recorded when the task was created) and the last write error while it was failing. */
export const TaskTargetInfo = Type.Object({
  data_source_id: Type.String(),
  data_source_name: Type.String(),
  type: Type.String(),
  table: Type.String(),
  error: Type.String(),
  error_ts: Type.Union([Type.String(), Type.Null()]),
});
export type TaskTargetInfo = Static<typeof TaskTargetInfo>;

/** What every user sees of the data sources: enough to choose one for a spider. */
export const DataSourceChoice = Type.Object({ _id: Type.String(), name: Type.String(), type: Type.String() });
export type DataSourceChoice = Static<typeof DataSourceChoice>;

export const SpiderTargetEnvelope = Envelope(SpiderTargetInfo);
export const TaskTargetEnvelope = Envelope(TaskTargetInfo);
export const DataSourceChoicesEnvelope = Envelope(Type.Array(DataSourceChoice));
