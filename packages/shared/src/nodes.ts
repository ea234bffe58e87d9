/**
 * What the nodes API answers, as TypeBox schemas: the server declares them on its routes (they also shape the
 * OpenAPI document and drop anything not described) and the console derives its types from them.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

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

export const SystemInfoSchema = Type.Object({
  os: Type.String(),
  arch: Type.String(),
  num_cpu: Type.Integer(),
  hostname: Type.String(),
  executables: Type.Array(Type.Object({ name: Type.String(), path: Type.String() })),
  python: Type.String(),
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

export const NodeEnvelope = Ok(NodeInfo);
export const NodeListEnvelope = Ok(Type.Array(NodeInfo));
export const NodeSystemEnvelope = Ok(NodeSystem);
export const NodeJoinEnvelope = Ok(NodeJoin);
export const NodeDeletedEnvelope = Ok(Type.Null());
/** Answer of the node-api ingest endpoints: everything below `acked` is stored. */
export const ShipAckEnvelope = Ok(Type.Object({ acked: Type.Integer() }));
