import { SUSPICIOUS_MIN_USUAL_RESULTS, type SuspiciousReason, type TaskSuspicion } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { earlierResults, finishedTask, markSuspicious } from './suspicious.store.ts';

function median(values: number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
}

/** Why a run with these counts deserves a look, given what the spider's earlier runs stored. */
export function suspicionOf(errorLines: number, results: number, earlier: number[]): TaskSuspicion | null {
  const usual = median(earlier);
  const reasons: SuspiciousReason[] = [];
  if (errorLines > 0) reasons.push('error_lines');
  if (results === 0 && usual >= SUSPICIOUS_MIN_USUAL_RESULTS) reasons.push('no_results');
  return reasons.length ? { reasons, usual_results: usual } : null;
}

/**
 * Looks at a task that just finished: a spider may exit 0 although every request failed, so a green "finished"
 * alone does not say the run went well. A suspicious finish is stored on the task and announced once.
 */
export async function checkFinishedTask(ctx: AppContext, taskId: string): Promise<void> {
  const t = await finishedTask(ctx.store.db, taskId);
  if (!t || t.status !== 'finished' || t.suspicious) return;
  const earlier = t.result_count === 0 ? await earlierResults(ctx.store.db, t.spider_id, t.id, t.create_ts) : [];
  const suspicion = suspicionOf(t.error_lines, t.result_count, earlier);
  if (!suspicion || !(await markSuspicious(ctx.store.db, t.id, JSON.stringify(suspicion)))) return;
  ctx.events.emit('task.suspicious', {
    taskId: t.id,
    spiderId: t.spider_id,
    reasons: suspicion.reasons,
    errorLines: t.error_lines,
    results: t.result_count,
    usualResults: suspicion.usual_results,
  });
}
