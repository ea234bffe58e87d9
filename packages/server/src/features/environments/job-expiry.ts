/**
 * Environment jobs end by themselves: a job its node never takes (the node went away before claiming it), or one
 * it took and then stopped reporting on (killed, unplugged, removed), ends failed with the reason once its stored
 * deadline passes. The deadline is in the store, so the sweep of any master, started at any time, ends it; a
 * restart forgets nothing. A sweep looks a few times per timeout, at most every half minute.
 */
import type { AppContext } from '../../context.ts';
import { expireJobs } from './environments.store.ts';

export function startJobExpiry(ctx: AppContext): void {
  const ttlMs = ctx.config.envJobTimeoutMs;
  ctx.jobs.every({
    name: 'env-job-expiry',
    everyMs: Math.max(50, Math.min(30_000, Math.floor(ttlMs / 4))),
    async run() {
      // The store away (PostgreSQL restarting) fails a run: the job tries again, the deadlines stay stored.
      const ended = await expireJobs(ctx.store.db, Date.now(), ttlMs);
      for (const j of ended) ctx.log.warn({ job: j.id, nodeId: j.node_id, name: j.name }, j.error);
    },
  });
}
