import { Type, type Static } from '@sinclair/typebox';
import { Id, Int, Str } from './bounds.ts';
import { pageFields } from './paging.ts';

/** Task, node and deploy shapes of the API (spec §3, §7 "Nodes", "Tasks"). */
export const TASK_STATUSES = ['pending', 'running', 'finished', 'error', 'cancelled', 'abnormal'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const FINAL_TASK_STATUSES: readonly TaskStatus[] = ['finished', 'error', 'cancelled', 'abnormal'];
export const RUN_TYPES = ['random', 'all-nodes', 'selected-nodes'] as const;
export type RunType = (typeof RUN_TYPES)[number];


export const RunTaskBody = Type.Object({
  spider_id: Id,
  run_type: Type.Optional(Type.Union(RUN_TYPES.map((r) => Type.Literal(r)))),
  node_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  param: Type.Optional(Str(10000)),
});
export type RunTaskBody = Static<typeof RunTaskBody>;

export const RunSpidersBody = Type.Object({
  task_params: Type.Array(Type.Object({ spider_id: Id, param: Type.Optional(Str(10000)) }), { minItems: 1, maxItems: 1000 }),
  run_type: Type.Optional(Type.Union(RUN_TYPES.map((r) => Type.Literal(r)))),
  node_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
});
export type RunSpidersBody = Static<typeof RunSpidersBody>;

export const TaskListQuery = Type.Object({
  ...pageFields(99999999),
  node_id: Type.Optional(Str(64)),
  spider_id: Type.Optional(Str(64)),
  status: Type.Optional(Str(40)),
  schedule_id: Type.Optional(Str(64)),
  type: Type.Optional(Str(40)),
});
export type TaskListQuery = Static<typeof TaskListQuery>;

export const IdsBody = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 10000 }) });
export type IdsBody = Static<typeof IdsBody>;

export const LogQuery = Type.Object({
  keyword: Type.Optional(Str(1000)),
  ...pageFields(100000),
});
export type LogQuery = Static<typeof LogQuery>;

export const NodeEditBody = Type.Object({
  name: Type.Optional(Str(200, { minLength: 1 })),
  description: Type.Optional(Str(2000)),
  enabled: Type.Optional(Type.Boolean()),
  max_runners: Type.Optional(Int(1, 1000)),
});
export type NodeEditBody = Static<typeof NodeEditBody>;

export interface TaskInfo {
  _id: string;
  spider_id: string;
  spider_name: string;
  node_id: string;
  node_name?: string;
  schedule_id: string | null;
  parent_id: string | null;
  type: string;
  status: TaskStatus;
  run_type: RunType;
  param: string;
  cmd: string;
  error: string;
  exit_code: number | null;
  pid: number | null;
  result_count: number;
  log_count: number;
  error_log_count: number;
  create_ts: string | null;
  start_ts: string | null;
  finish_ts: string | null;
  wait_duration: number | null;
  runtime_duration: number | null;
  total_duration: number | null;
  owner_id: string | null;
  /** Set when a finished task deserves a look: it printed error lines, or stored no result where earlier runs stored many. */
  suspicious?: TaskSuspicion | null;
}

export const SUSPICIOUS_REASONS = ['error_lines', 'no_results'] as const;
export type SuspiciousReason = (typeof SUSPICIOUS_REASONS)[number];
/** A finished run with no result is suspicious when the spider's earlier finished runs stored at least this many (median). */
export const SUSPICIOUS_MIN_USUAL_RESULTS = 10;

export interface TaskSuspicion {
  reasons: SuspiciousReason[];
  /** Median results of the spider's earlier finished runs. */
  usual_results: number;
}

export interface LogLine {
  _id: string;
  line_no: number;
  msg: string;
  is_error: boolean;
}

export interface DeployInfo {
  _id: string;
  spider_id: string;
  node_id: string;
  task_id: string | null;
  files_total: number;
  files_changed: number;
  bytes: number;
  error: string;
  create_ts: string | null;
  finish_ts: string | null;
}

/** GET /tasks/{id}/results/download: `bom=1` starts the CSV with a byte-order mark. */
export const ResultsDownloadQuery = Type.Object({ bom: Type.Optional(Str(10)) });

/** GET /tasks/{id}/stream: the token (an event stream cannot send headers) and the first log line to send. */
export const TaskStreamQuery = Type.Object({ token: Type.Optional(Str(1000)), from: Type.Optional(Int(0, Number.MAX_SAFE_INTEGER)) });

export const DeployListQuery = Type.Object({ spider_id: Type.Optional(Str(64)), ...pageFields(100000) });
