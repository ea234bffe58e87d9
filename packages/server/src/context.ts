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

/** What every feature gets: configuration, the store, the logger and an in-process event bus. */
export interface AppContext {
  config: MasterConfig;
  store: Store;
  log: FastifyBaseLogger;
  /** In-process notifications between features (e.g. task status changes → live updates, webhooks). */
  events: EventBus;
  /** Registers work for graceful shutdown (drain loops, close sockets); run last-registered first. */
  onClose(fn: () => Promise<void> | void): void;
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
