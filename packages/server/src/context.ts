import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { MasterConfig } from './config.ts';
import type { EventBus } from './events.ts';
import type { Store } from './store/db.ts';
import type { JobRunner } from './jobs/job-runner.ts';
import type { TaskRuntime } from './features/execution/runtime.ts';

/** Configuration, the store, the logger and an in-process event bus: what task execution is built from. */
export interface CoreContext {
  config: MasterConfig;
  store: Store;
  log: FastifyBaseLogger;
  /** In-process notifications between features (e.g. task status changes → live updates, webhooks). */
  events: EventBus;
  /** Background work as named jobs (single flight, backoff, drained first at shutdown, counted in /metrics). */
  jobs: JobRunner;
  /** Registers work for graceful shutdown (drain loops, close sockets); run last-registered first. */
  onClose(fn: () => Promise<void> | void): void;
}

/**
 * What every feature gets: the core, and task execution (node sessions, dispatch, ingest and task events), made
 * once at start-up from the core (features/execution/runtime.ts).
 */
export interface AppContext extends CoreContext {
  execution: TaskRuntime;
}

/** Fastify with TypeBox schemas as the type source, so handlers see typed `body`, `query` and `params`. */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A feature registers its routes (and background work) on the typed Fastify instance. */
export type Feature = (app: TypedApp, ctx: AppContext) => Promise<void> | void;
