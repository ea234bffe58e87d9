import { setTimeout as rest } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { JobHandle } from '../../jobs/job-runner.ts';
import type { AppContext } from '../../context.ts';
import { checkpointCaughtUp } from '../../store/checkpoint-wait.ts';
import type { DB } from '../../store/schema.ts';
import { deleteTaskRows } from '../tasks/tasks.store.ts';
import {
  fitRound,
  nextRoundRows,
  purgeRows,
  PURGE_ROUND_BUDGET_MS,
  PURGE_ROUND_BUDGET_PG_MS,
  PURGE_ROUND_MAX_TASKS,
  PURGE_ROUND_MIN_ROWS,
  restAfter,
} from './purge-rounds.ts';
import { deletePurgedTasks, nextPurgeTasks, type PurgeKey } from './spider-purge.store.ts';
import { endSpiderPurge, spidersBeingPurged } from './spiders.store.ts';

/**
 * How often the list of spiders to purge is read when nothing announced a deletion (a deletion by another master
 * of the same store, or straight in the store).
 */
const LOOK_AGAIN_MS = 5_000;

/**
 * Deletes the tasks of deleted spiders in the background, in rounds sized by time (purge-rounds.ts): each round
 * reads the next tasks of the spider along its index, past those already deleted, and deletes them in one statement
 * with their log lines and items; a task with more output than a round goes alone, its output in chunks first. After
 * each round the purger rests as long as the round took, so requests and the task flow go on between rounds (a
 * quarter of that while the master has nothing else to do: restAfter). The spiders to purge are stored (the store
 * records each deleted spider), so a purge cut short by a stop or a kill goes on at the next start, from the
 * spider's first remaining task. The spider itself is gone at once: its tasks are
 * hidden from the task lists and left out of every count while they wait.
 */
export function startSpiderPurger(ctx: AppContext): JobHandle {
  const db = ctx.store.db;
  let rows = PURGE_ROUND_MIN_ROWS;
  const budget = ctx.store.engine === 'sqlite' ? PURGE_ROUND_BUDGET_MS : PURGE_ROUND_BUDGET_PG_MS;
  /** Share of the last rest the master's event loop spent on other work. */
  let busy = 1;

  async function purge(spiderId: string, stop: AbortSignal): Promise<void> {
    let after: PurgeKey | undefined;
    while (!stop.aborted) {
      const t0 = performance.now();
      const round = await purgeRound(db, spiderId, after, rows);
      if (round === 'done') {
        // Tasks created behind the walk (a spider deleted while one was being added) are looked for once more.
        if (!after) return endSpiderPurge(db, spiderId);
        after = undefined;
        continue;
      }
      const took = performance.now() - t0;
      if (round.sized) rows = nextRoundRows(rows, took, budget);
      after = round.last;
      const loop = performance.eventLoopUtilization();
      await rest(restAfter(took, busy));
      await checkpointCaughtUp(ctx.store);
      busy = performance.eventLoopUtilization(loop).utilization;
    }
  }

  async function run(stop: AbortSignal): Promise<void> {
    for (let spiders = await spidersBeingPurged(db); spiders.length && !stop.aborted;) {
      for (const id of spiders) if (!stop.aborted) await purge(id, stop);
      spiders = await spidersBeingPurged(db);
    }
  }

  return ctx.jobs.every({ name: 'spider-purge', everyMs: LOOK_AGAIN_MS, run });
}

/**
 * One round of a spider's purge: the tasks after `after` that fit in `rows`, deleted. Answers the last task it
 * deleted and whether the round's time tells about its size (a task deleted alone in chunks does not), or 'done'
 * when no task is left after `after`.
 */
async function purgeRound(
  db: Kysely<DB>,
  spiderId: string,
  after: PurgeKey | undefined,
  rows: number,
): Promise<{ last: PurgeKey; sized: boolean } | 'done'> {
  const candidates = await nextPurgeTasks(db, spiderId, after, Math.min(rows, PURGE_ROUND_MAX_TASKS));
  if (!candidates.length) return 'done';
  const round = fitRound(candidates, rows);
  const last = round[round.length - 1];
  if (round.length === 1 && purgeRows(last) > rows) {
    await deleteTaskRows(db, [last.id]);
    return { last, sized: false };
  }
  await deletePurgedTasks(
    db,
    round.map((t) => t.id),
  );
  return { last, sized: true };
}
