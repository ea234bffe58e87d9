/**
 * An automatic retry waits in the queue until its `not_before` (its backoff): dispatch passes it over until then.
 * Nothing else frees a slot or creates a task at that moment, so one job (`retry-wake`) looks in the store for
 * retries whose time came since its last look and wakes dispatch when it finds one. The time is stored, so a
 * restarted master (whose first look covers everything up to now) starts a retry that fell due while it was down.
 */
import type { Kysely } from 'kysely';
import type { JobHandle, JobRunner } from '../../jobs/job-runner.ts';
import type { DB } from '../../store/schema.ts';
import { retryFellDue } from './queue.store.ts';

/** How often the job looks: a retry starts at most this much after its time (when a slot is free). */
const LOOK_EVERY_MS = 250;

export function startRetryWake(jobs: JobRunner, db: Kysely<DB>, wake: () => void): JobHandle {
  let lookedUpTo = 0;
  return jobs.every({
    name: 'retry-wake',
    everyMs: LOOK_EVERY_MS,
    runAtStart: true,
    async run() {
      const now = Date.now();
      if (await retryFellDue(db, lookedUpTo, now)) wake();
      lookedUpTo = now;
    },
  });
}
