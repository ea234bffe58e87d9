/**
 * Environment jobs end by themselves: a job its node never takes (the node went away before claiming it), or one
 * it took and then stopped reporting on (killed, unplugged, removed), ends failed with the reason once its stored
 * deadline passes. The deadline is in the store, so the sweep of any master, started at any time, ends it; a
 * restart forgets nothing. A sweep looks a few times per timeout, at most every half minute.
 */
import { isStoreUnavailable } from '../../store/db.ts';
import type { AppContext } from '../../context.ts';
import { expireJobs } from './environments.store.ts';

export function startJobExpiry(ctx: AppContext): { close(): Promise<void> } {
  const ttlMs = ctx.config.envJobTimeoutMs;
  const every = Math.max(50, Math.min(30_000, Math.floor(ttlMs / 4)));
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const sweep = async () => {
    try {
      const ended = await expireJobs(ctx.store.db, Date.now(), ttlMs);
      for (const j of ended) ctx.log.warn({ job: j.id, nodeId: j.node_id, name: j.name }, j.error);
    } catch (err) {
      // The store is away (PostgreSQL restarting): the next sweep tries again, the deadlines stay stored.
      if (!isStoreUnavailable(err)) ctx.log.error({ err }, 'expiring environment jobs failed');
    }
  };
  const timer = setInterval(() => {
    if (!closed) running = running.then(sweep);
  }, every);
  timer.unref();
  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
