/**
 * How a node and the store come to agree again after the node's connection was lost or the store was away. A node
 * that registers reports the tasks it still holds; the store follows the node for the tasks it knows, and what
 * either side holds without the other is dropped, queued again or ended as lost. When something the node said or
 * was sent could not be stored, the node is asked to register again, which runs this agreement once more.
 */
import type { WebSocket } from 'ws';
import type { Kysely } from 'kysely';
import { END_REASON_PREFIX, type NodeToMaster } from '@crawldeck/shared';
import type { TaskStatusEvent } from '../../events.ts';
import type { DB } from '../../store/schema.ts';
import * as state from './task-state.store.ts';
import type { Session, SessionTable } from './sessions.ts';

/** The tasks a registering node reports: each with its state on the node and its process id. */
export type TaskReports = Extract<NodeToMaster, { type: 'register' }>['tasks'];

/** The node says what it still runs; the store follows the node for tasks it knows, the rest are lost. */
export async function reconcile(
  db: Kysely<DB>,
  sessions: SessionTable,
  s: Session,
  reports: TaskReports,
  emit: (ev: TaskStatusEvent | undefined) => void,
): Promise<void> {
  const reported = new Map(reports.map((r) => [r.taskId, r]));
  const known = await state.tasksById(db, [...reported.keys()]);
  for (const r of reports) {
    const t = known.get(r.taskId);
    if (!t || t.node_id !== s.nodeId) {
      sessions.send(s, { type: 'task.drop', taskId: r.taskId });
      continue;
    }
    s.addTask(r.taskId);
    if (r.state !== 'running') continue;
    if (t.status === 'cancelled') sessions.send(s, { type: 'task.cancel', taskId: r.taskId });
    else emit(await state.resumeTask(db, r.taskId, r.pid));
  }
  for (const t of await state.tasksOnNode(db, s.nodeId)) {
    if (reported.has(t.id)) continue;
    if (t.status === 'pending') await state.unassignTask(db, t.id);
    else
      emit(
        await state.abandonTask(
          db,
          t.id,
          'running',
          `${END_REASON_PREFIX.nodeLost}: the node restarted without the task`,
        ),
      );
  }
}

/**
 * What the node said or was sent could not be stored (PostgreSQL away): it connects and registers again, which
 * reports its running tasks and re-sends final reports the master did not acknowledge; the store and the node
 * agree again once registration succeeds. A lost heartbeat needs no repeat.
 */
export function registerAgain(socket: WebSocket): void {
  socket.close(1013, 'store unavailable, register again');
}
