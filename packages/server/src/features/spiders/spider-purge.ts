import { setTimeout as rest } from 'node:timers/promises';
import type { AppContext } from '../../context.ts';
import { deleteTaskRows } from '../tasks/tasks.store.ts';
import { endSpiderPurge, purgeTaskIds, spidersBeingPurged } from './spiders.store.ts';

/** Tasks of a deleted spider deleted per round (each with its log lines and items, in their own chunks). */
export const SPIDER_PURGE_TASKS = 200;
/** How often the list of spiders to purge is read when nothing announced a deletion (an owner's deletion). */
const LOOK_AGAIN_MS = 5_000;

/**
 * Deletes the tasks of deleted spiders in the background: a round of a few hundred tasks at a time, with their log
 * lines and items (`deleteTaskRows`, the chunked task deletion), then a rest as long as the round took, so that
 * requests and the task flow go on between rounds. The spiders to purge are stored (the store records each deleted
 * spider), so a purge cut short by a stop or a kill goes on at the next start. The spider itself is gone at once:
 * its tasks are hidden from the task list and the task detail while they wait.
 */
export function startSpiderPurger(ctx: AppContext): { kick(): void; close(): Promise<void> } {
  const db = ctx.store.db;
  let closed = false;
  let running: Promise<void> | undefined;
  let again = false;

  async function purge(spiderId: string): Promise<void> {
    while (!closed) {
      const t0 = performance.now();
      const ids = await purgeTaskIds(db, spiderId, SPIDER_PURGE_TASKS);
      if (!ids.length) return endSpiderPurge(db, spiderId);
      await deleteTaskRows(db, ids);
      await rest(performance.now() - t0);
    }
  }

  async function run(): Promise<void> {
    for (let spiders = await spidersBeingPurged(db); spiders.length && !closed;) {
      for (const id of spiders) if (!closed) await purge(id);
      spiders = await spidersBeingPurged(db);
    }
  }

  const kick = (): void => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = run()
      .catch((err: unknown) => ctx.log.warn({ err }, 'spider purge: a round failed, it is tried again'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  const timer = setInterval(kick, LOOK_AGAIN_MS);
  timer.unref();
  return {
    kick,
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
