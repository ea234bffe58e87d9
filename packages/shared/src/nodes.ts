/**
 * What the nodes API answers, as TypeBox schemas: the server declares them on its routes (they also shape the
 * OpenAPI document and drop anything not described) and the console derives its types from them.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Str } from './bounds.ts';
import { pageFields } from './paging.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** The envelope of a successful answer around `data` (api.ts ApiOk). */
const Ok = <T extends TSchema>(data: T) =>
  Type.Object({
    status: Type.Literal('ok'),
    message: Type.Literal('success'),
    data,
    total: Type.Optional(Type.Integer()),
  });

export const NodeMetricsSchema = Type.Object({
  cpu: Type.Number(),
  mem: Type.Number(),
  disk: Type.Number(),
  mem_total: Type.Number(),
  disk_total: Type.Number(),
  running: Type.Integer(),
});

/** How a node confines its tasks (absent: a node from before sandboxes). */
export const SandboxInfoSchema = Type.Object({
  /** Each task in its own namespaces (processes, IPC, mounts, a private /tmp). */
  isolated: Type.Boolean(),
  /** Each running task under a uid of its own (the node is root). */
  own_uids: Type.Boolean(),
  /** Memory, CPU and process limits per task (control groups). */
  limits: Type.Boolean(),
  /** Why the node cannot sandbox tasks, in English; '' when it can. */
  reason: Type.String(),
});
export type SandboxInfo = Static<typeof SandboxInfoSchema>;

export const SystemInfoSchema = Type.Object({
  os: Type.String(),
  arch: Type.String(),
  num_cpu: Type.Integer(),
  hostname: Type.String(),
  executables: Type.Array(Type.Object({ name: Type.String(), path: Type.String() })),
  python: Type.String(),
  sandbox: Type.Optional(SandboxInfoSchema),
});

export const NodeInfo = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: Type.Union([Type.Literal('master'), Type.Literal('worker')]),
  is_master: Type.Boolean(),
  status: Type.Union([Type.Literal('online'), Type.Literal('offline'), Type.Literal('unavailable')]),
  enabled: Type.Boolean(),
  max_runners: Type.Integer(),
  running: Type.Integer(),
  ip: Type.String(),
  systemInfo: Nullable(SystemInfoSchema),
  metrics: Nullable(NodeMetricsSchema),
  last_seen_ts: Nullable(Type.String()),
  create_ts: Nullable(Type.String()),
  update_ts: Nullable(Type.String()),
});
export type NodeInfo = Static<typeof NodeInfo>;

/** One point of a node's metrics history (one per minute, averaged over its heartbeats). */
export const MetricSample = Type.Object({
  ts: Nullable(Type.String()),
  cpu: Type.Number(),
  mem: Type.Number(),
  disk: Type.Number(),
  running: Type.Integer(),
});
export type MetricSample = Static<typeof MetricSample>;

/** GET /nodes/:id/system: the host facts (also at the top level, as older clients read them), history, current. */
export const NodeSystem = Type.Intersect([
  Type.Partial(SystemInfoSchema),
  Type.Object({
    systemInfo: Type.Union([SystemInfoSchema, Type.Object({})]),
    metrics: Type.Array(MetricSample),
    current: Nullable(NodeMetricsSchema),
  }),
]);
export type NodeSystem = Static<typeof NodeSystem>;

/** GET /nodes-join: what an admin needs to add a worker node. */
export const NodeJoin = Type.Object({
  master_url: Type.String(),
  key: Type.String(),
  command: Type.String(),
  docs_url: Type.String(),
  offline_seconds: Type.Number(),
});
export type NodeJoin = Static<typeof NodeJoin>;

/**
 * A row of the node list: what the list screens show. Of the host facts only the summary the list shows (system,
 * arch, CPUs, host name); the executables found on the host and the Python version are in GET /nodes/{id}.
 */
export const NodeSummarySchema = Type.Pick(SystemInfoSchema, ['os', 'arch', 'num_cpu', 'hostname', 'sandbox']);
export const NodeListItem = Type.Composite([
  Type.Omit(NodeInfo, ['systemInfo']),
  Type.Object({ systemInfo: Nullable(NodeSummarySchema) }),
]);
export type NodeListItem = Static<typeof NodeListItem>;

/** Node statuses a list can be filtered by. */
export const NodeStatusFilter = Type.Union([
  Type.Literal('online'),
  Type.Literal('offline'),
  Type.Literal('unavailable'),
]);

/** Largest page of the node list. */
export const MAX_NODE_PAGE_SIZE = 100;

/**
 * GET /nodes: without parameters the whole fleet (as older callers expect); with `page_num` / `page_size` one page
 * of it; `keyword` matches name, description, address and host name (case aside), `status` the live status. The
 * answer's `total` counts the nodes matching the filters.
 */
export const NodeListQuery = Type.Object({
  ...pageFields(MAX_NODE_PAGE_SIZE),
  keyword: Type.Optional(Str(100)),
  status: Type.Optional(NodeStatusFilter),
});
export type NodeListQuery = Static<typeof NodeListQuery>;

/**
 * The console's event stream (GET /events): which node changes a screen needs. `nodes`: comma-separated ids whose
 * heartbeats (metrics, last seen) the screen shows; status changes of every node always come. Without it, status
 * changes only.
 */
export const MAX_WATCHED_NODES = MAX_NODE_PAGE_SIZE;
export const EventStreamQuery = Type.Object({
  nodes: Type.Optional(
    Type.String({
      pattern: `^[0-9a-f]{24}(,[0-9a-f]{24}){0,${MAX_WATCHED_NODES - 1}}$`,
      maxLength: MAX_WATCHED_NODES * 25,
      description: 'comma-separated node ids (at most 100) whose heartbeats the screen shows',
    }),
  ),
});
export type EventStreamQuery = Static<typeof EventStreamQuery>;

/**
 * One node in a `nodes` event: its latest state since the previous event. `metrics` and `last_seen_ts` only for
 * nodes the stream watches; a status change of any node always.
 */
export const NodeChange = Type.Object({
  nodeId: Type.String(),
  status: NodeStatusFilter,
  metrics: Type.Optional(NodeMetricsSchema),
  last_seen_ts: Type.Optional(Type.String()),
});
export type NodeChange = Static<typeof NodeChange>;

/** The `nodes` event of the console's stream: at most one per interval, only the nodes that changed. */
export const NodesEvent = Type.Object({ ts: Type.String(), nodes: Type.Array(NodeChange) });
export type NodesEvent = Static<typeof NodesEvent>;

export const NodeEnvelope = Ok(NodeInfo);
export const NodeListEnvelope = Ok(Type.Array(NodeListItem));
export const NodeSystemEnvelope = Ok(NodeSystem);
export const NodeJoinEnvelope = Ok(NodeJoin);
export const NodeDeletedEnvelope = Ok(Type.Null());
/** Answer of the node-api ingest endpoints: everything below `acked` is stored. */
export const ShipAckEnvelope = Ok(Type.Object({ acked: Type.Integer() }));

/**
 * A node's own key for the node API, as administrators see it (never the key itself): whether it has one, since
 * when, when the node last used it and whether it was revoked.
 */
export const NodeKeyState = Type.Object({
  has_key: Type.Boolean(),
  revoked: Type.Boolean(),
  created_at: Nullable(Type.String()),
  last_used_at: Nullable(Type.String()),
  revoked_at: Nullable(Type.String()),
});
export type NodeKeyState = Static<typeof NodeKeyState>;

/**
 * A new key for a node, shown this once: `delivered` when the node was connected to this master and keeps it now;
 * otherwise it goes into the file `node-credential` of the node's data dir.
 */
export const NodeKeyIssued = Type.Composite([
  NodeKeyState,
  Type.Object({ key: Type.String(), delivered: Type.Boolean() }),
]);
export type NodeKeyIssued = Static<typeof NodeKeyIssued>;

export const NodeKeyStateEnvelope = Ok(NodeKeyState);
export const NodeKeyIssuedEnvelope = Ok(NodeKeyIssued);
