import { TaskEndReason } from './end-reason.ts';
import { Type, type Static } from '@sinclair/typebox';
import { Id, Int, Str } from './bounds.ts';
import { RETRY_MAX, TIMEOUT_MAX_SECONDS } from './constants.ts';
import { cursorField, Envelope, EnvelopeList, KeysetEnvelopeList, Nullable, pageFields } from './paging.ts';
import { Spider } from './spiders.ts';

/** Task, node and deploy shapes of the API: what a request may carry and what the answer holds. */
export const TASK_STATUSES = ['pending', 'running', 'finished', 'error', 'cancelled', 'abnormal'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const FINAL_TASK_STATUSES: readonly TaskStatus[] = ['finished', 'error', 'cancelled', 'abnormal'];
export const RUN_TYPES = ['random', 'all-nodes', 'selected-nodes'] as const;
export type RunType = (typeof RUN_TYPES)[number];

/**
 * A task's place in the queue: 1 is the highest priority, 5 the lowest, 3 unless chosen. Dispatch starts the
 * highest priority first and, within one priority, the oldest task first.
 */
export const PRIORITY_HIGHEST = 1;
export const PRIORITY_LOWEST = 5;
export const PRIORITY_DEFAULT = 3;
export const PRIORITIES = [1, 2, 3, 4, 5] as const;
/**
 * A run's own maximum run time in seconds, instead of its spider's `timeout_seconds`; 0 lets this run take as long
 * as it takes.
 */
export const RunTimeout = Int(0, TIMEOUT_MAX_SECONDS, { description: 'maximum run time in seconds, 0 = none' });

/** A run's own count of automatic retries, instead of its schedule's or spider's `retries`. */
export const RunRetries = Int(0, RETRY_MAX, { description: 'automatic retries of this run, 0 to 5' });

export const TaskPriority = Int(PRIORITY_HIGHEST, PRIORITY_LOWEST, {
  description: 'queue priority: 1 (highest) to 5 (lowest), default 3',
});

export const RunTaskBody = Type.Object({
  spider_id: Id,
  run_type: Type.Optional(Type.Union(RUN_TYPES.map((r) => Type.Literal(r)))),
  node_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  param: Type.Optional(Str(10000)),
  priority: Type.Optional(TaskPriority),
  timeout: Type.Optional(RunTimeout),
  retries: Type.Optional(RunRetries),
});
export type RunTaskBody = Static<typeof RunTaskBody>;

export const RunSpidersBody = Type.Object({
  task_params: Type.Array(
    Type.Object({
      spider_id: Id,
      param: Type.Optional(Str(10000)),
      priority: Type.Optional(TaskPriority),
      timeout: Type.Optional(RunTimeout),
      retries: Type.Optional(RunRetries),
    }),
    {
      minItems: 1,
      maxItems: 1000,
    },
  ),
  run_type: Type.Optional(Type.Union(RUN_TYPES.map((r) => Type.Literal(r)))),
  node_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
});
export type RunSpidersBody = Static<typeof RunSpidersBody>;

export const TaskListQuery = Type.Object({
  ...pageFields(99999999),
  ...cursorField(),
  node_id: Type.Optional(Str(64)),
  spider_id: Type.Optional(Str(64)),
  status: Type.Optional(Str(40)),
  schedule_id: Type.Optional(Str(64)),
  type: Type.Optional(Str(40)),
  priority: Type.Optional(TaskPriority),
});
export type TaskListQuery = Static<typeof TaskListQuery>;

/** POST /tasks/{id}/priority: a pending task's new place in the queue. */
export const TaskPriorityBody = Type.Object({ priority: TaskPriority });
export type TaskPriorityBody = Static<typeof TaskPriorityBody>;

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

export const SUSPICIOUS_REASONS = ['error_lines', 'no_results'] as const;
export type SuspiciousReason = (typeof SUSPICIOUS_REASONS)[number];
/** A finished run with no result is suspicious when the spider's earlier finished runs stored at least this many (median). */
export const SUSPICIOUS_MIN_USUAL_RESULTS = 10;

/** Why a finished task deserves a look: it printed error lines, or stored no result where earlier runs stored many. */
export const TaskSuspicion = Type.Object({
  reasons: Type.Array(Type.Union(SUSPICIOUS_REASONS.map((r) => Type.Literal(r)))),
  /** Median results of the spider's earlier finished runs. */
  usual_results: Type.Number(),
});
export type TaskSuspicion = Static<typeof TaskSuspicion>;

/**
 * Why a pending task still waits: handed to its node, which deploys its files and prepares its environment
 * (`preparing`); a node that may run it has a free slot, so it goes there next (`queued`); every node that may run it
 * is busy (`slots_busy`); its spider or its project already has as many tasks claimed or running as its concurrency
 * limit allows (`spider_concurrency`, `project_concurrency`); an automatic retry waits out its backoff until its
 * `not_before` (`retry_backoff`); every node that may run it is disabled (`nodes_disabled`); the online nodes do not take a normal user's tasks (the
 * master's own node while workers exist, or nodes without a sandbox: `closed_to_user`); no node that may run it is
 * online (`no_node_online`).
 */
export const TASK_WAIT_REASONS = [
  'preparing',
  'queued',
  'slots_busy',
  'spider_concurrency',
  'project_concurrency',
  'retry_backoff',
  'nodes_disabled',
  'closed_to_user',
  'no_node_online',
] as const;
export type TaskWaitReason = (typeof TASK_WAIT_REASONS)[number];
const TaskWaitReasonSchema = Type.Union(TASK_WAIT_REASONS.map((r) => Type.Literal(r)));

/** GET /tasks/{id}/results/download: `bom=1` starts the CSV with a byte-order mark. */
export const ResultsDownloadQuery = Type.Object({ bom: Type.Optional(Str(10)) });

/** GET /tasks/{id}/stream: the token (an event stream cannot send headers) and the first log line to send. */
export const TaskStreamQuery = Type.Object({
  token: Type.Optional(Str(1000)),
  from: Type.Optional(Int(0, Number.MAX_SAFE_INTEGER)),
});

/**
 * One task in a `tasks` event of the console's stream (`GET /api/events`): its latest status since the previous
 * event. `deleted` when the task was deleted; `nodeId` is all zeros while no node has it. A pending task carries
 * why it waits; it is announced again, with its new reason, when a node's status change alters that reason.
 */
export const TaskChange = Type.Object({
  taskId: Type.String(),
  status: Type.String({ description: 'a task status, or deleted' }),
  spiderId: Type.String(),
  nodeId: Type.String(),
  scheduleId: Nullable(Type.String()),
  parentId: Nullable(Type.String()),
  error: Type.String(),
  waiting_reason: Type.Optional(TaskWaitReasonSchema),
});
export type TaskChange = Static<typeof TaskChange>;

/**
 * The `tasks` event of the console's stream: at most one per interval (about a second), each task that changed in
 * it once with its latest status, only tasks of spiders the listener may read. The `nodes` event (nodes.ts) is its
 * counterpart for the fleet.
 */
export const TasksEvent = Type.Object({ ts: Type.String(), tasks: Type.Array(TaskChange) });
export type TasksEvent = Static<typeof TasksEvent>;

export const DeployListQuery = Type.Object({ spider_id: Type.Optional(Str(64)), ...pageFields(100000) });

/** Lists of a spider's tasks, of a task's items: page number and size, or a cursor of an earlier answer. */
export const TaskPageQuery = Type.Object({ ...pageFields(100000), ...cursorField() });
export type TaskPageQuery = Static<typeof TaskPageQuery>;

const Ts = Nullable(Type.String({ description: 'ISO 8601 time' }));
const Ms = Nullable(Type.Number({ description: 'milliseconds' }));

/** A task as every route shows it: ISO times, durations in ms, the node id of zeros while none is chosen. */
export const TaskInfo = Type.Object({
  _id: Type.String(),
  spider_id: Type.String(),
  spider_name: Type.String(),
  node_id: Type.String(),
  /** Absent while the task waits for a node (or its node was deleted). */
  node_name: Type.Optional(Type.String()),
  schedule_id: Nullable(Type.String()),
  parent_id: Nullable(Type.String()),
  type: Type.String(),
  status: Type.Union(TASK_STATUSES.map((s) => Type.Literal(s))),
  run_type: Type.Union(RUN_TYPES.map((r) => Type.Literal(r))),
  param: Type.String(),
  /** Queue priority, 1 (highest) to 5 (lowest). */
  priority: Type.Number(),
  /** This run's own maximum run time in seconds (0: none); null follows the spider's. */
  timeout_seconds: Nullable(Type.Number()),
  /** 1 for a first run; n for its (n - 1)th automatic retry, whose `parent_id` is the first run. */
  attempt: Type.Number(),
  /** Automatic retries this run asked for; null follows its schedule's or spider's. */
  retries: Nullable(Type.Number()),
  /** A retry waiting for its backoff does not start before this time; null otherwise. */
  not_before: Ts,
  cmd: Type.String(),
  error: Type.String(),
  /** Why the task ended other than finished (out of memory, process limit, cancelled, signal, …); absent otherwise. */
  end_reason: Type.Optional(TaskEndReason),
  exit_code: Nullable(Type.Number()),
  pid: Nullable(Type.Number()),
  result_count: Type.Number(),
  log_count: Type.Number(),
  error_log_count: Type.Number(),
  create_ts: Ts,
  start_ts: Ts,
  finish_ts: Ts,
  wait_duration: Ms,
  runtime_duration: Ms,
  total_duration: Ms,
  owner_id: Nullable(Type.String()),
  /** Set when a finished task deserves a look. */
  suspicious: Type.Optional(Nullable(TaskSuspicion)),
  /** Why a pending task still waits (null for any other status). */
  waiting_reason: Type.Optional(Nullable(Type.Union(TASK_WAIT_REASONS.map((r) => Type.Literal(r))))),
});
export type TaskInfo = Static<typeof TaskInfo>;

/** GET /tasks/{id}: the task with its spider (null when the caller may no longer read it) and its node. */
export const TaskDetail = Type.Composite([
  TaskInfo,
  Type.Object({
    spider: Nullable(Spider),
    node: Nullable(
      Type.Object({
        _id: Type.String(),
        name: Type.String(),
        type: Type.String(),
        status: Type.String(),
        ip: Type.String(),
      }),
    ),
    /**
     * An ended Scrapy task whose closing stats count other than the items stored: Scrapy's `item_scraped_count`
     * and the task's result count (absent when they agree, or before the stats are read).
     */
    scrapy_items_mismatch: Type.Optional(Type.Object({ scraped: Type.Integer(), stored: Type.Integer() })),
    /** Every attempt of the run (the first and its automatic retries, oldest first), this one among them. */
    attempts: Type.Array(
      Type.Object({
        _id: Type.String(),
        attempt: Type.Number(),
        status: Type.Union(TASK_STATUSES.map((s) => Type.Literal(s))),
        not_before: Ts,
      }),
    ),
    /** Most attempts the run may make: 1 + its retries (its own, else its schedule's or spider's), at most 6. */
    attempts_max: Type.Number(),
  }),
]);
export type TaskDetail = Static<typeof TaskDetail>;

export const LogLine = Type.Object({
  _id: Type.String(),
  line_no: Type.Number(),
  msg: Type.String(),
  is_error: Type.Boolean(),
});
export type LogLine = Static<typeof LogLine>;

/** One stored item of a task: whatever the spider yielded, plus its id and task. */
export const TaskResult = Type.Object({ _id: Type.String(), task_id: Type.String() }, { additionalProperties: true });
export type TaskResult = Static<typeof TaskResult>;

/** Which files of which spider went to which node, for which task. */
export const DeployInfo = Type.Object({
  _id: Type.String(),
  spider_id: Type.String(),
  node_id: Type.String(),
  node_name: Type.String(),
  task_id: Nullable(Type.String()),
  files_total: Type.Number(),
  files_changed: Type.Number(),
  bytes: Type.Number(),
  error: Type.String(),
  create_ts: Ts,
  finish_ts: Ts,
});
export type DeployInfo = Static<typeof DeployInfo>;

export const TaskResponse = Envelope(TaskInfo);
export const TaskListResponse = KeysetEnvelopeList(TaskInfo);
export const TaskDetailResponse = Envelope(TaskDetail);
/** The ids of the tasks a run, restart or fire created. */
export const TaskIdsResponse = Envelope(Type.Array(Type.String()));
export const DeletedResponse = Envelope(Type.Object({ deleted: Type.Number() }));
export const CancelledResponse = Envelope(Type.Object({ cancelled: Type.Number() }));
export const LogLineListResponse = EnvelopeList(LogLine);
/**
 * GET /tasks/{id}/log: a page of lines. With a keyword `total` counts the matching lines; `total_partial: true`
 * says the search stopped counting, so `total` is only a lower bound ("at least"): it ran out of time, or it had
 * found its page and counted 10 000 matches (like a list's count).
 */
export const LogPageResponse = Type.Object({
  ...EnvelopeList(LogLine).properties,
  total_partial: Type.Optional(Type.Boolean()),
});
export type LogPageResponse = Static<typeof LogPageResponse>;
export const TaskResultListResponse = KeysetEnvelopeList(TaskResult);
export const DeployListResponse = EnvelopeList(DeployInfo);
