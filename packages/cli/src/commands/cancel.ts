import { FINAL_TASK_STATUSES, type TaskInfo } from '@crawldeck/shared';
import { ApiError, type ApiClient } from '../api-client.ts';
import { printRows, type Output } from '../output.ts';
import { taskId } from '../ids.ts';

/** What became of one task named to `crawldeck cancel`. */
export interface CancelOutcome {
  task: string;
  /** cancelled: stopped now; ended: it had ended already (status says how); failed: not found or not allowed. */
  outcome: 'cancelled' | 'ended' | 'failed';
  status: string | null;
  message: string;
}

async function cancelOne(api: ApiClient, id: string): Promise<CancelOutcome> {
  try {
    taskId(id);
  } catch (err) {
    return { task: id, outcome: 'failed', status: null, message: (err as Error).message };
  }
  try {
    const before = (await api.call<TaskInfo>('GET', `/tasks/${id}`)).data;
    if (FINAL_TASK_STATUSES.includes(before.status))
      return { task: id, outcome: 'ended', status: before.status, message: `already ${before.status}` };
    const after = (await api.call<TaskInfo>('POST', `/tasks/${id}/cancel`)).data;
    // It may have ended on its own between the two calls.
    if (after.status !== 'cancelled')
      return { task: id, outcome: 'ended', status: after.status, message: `already ${after.status}` };
    return { task: id, outcome: 'cancelled', status: after.status, message: `cancelled (was ${before.status})` };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { task: id, outcome: 'failed', status: null, message: err.message };
  }
}

/**
 * Cancels each task in turn and shows what became of it: cancelled now, ended already (a finished task is
 * reported, nothing to cancel), or the master's reason it could not be (unknown task, not yours). Exit code 1 when
 * any task could not be cancelled for such a reason.
 */
export async function cancel(api: ApiClient, ids: string[], out: Output): Promise<number> {
  const outcomes: CancelOutcome[] = [];
  for (const id of ids) outcomes.push(await cancelOne(api, id));
  printRows(out, outcomes, [
    ['Task', (o) => o.task],
    ['Outcome', (o) => o.message],
  ]);
  return outcomes.some((o) => o.outcome === 'failed') ? 1 : 0;
}
