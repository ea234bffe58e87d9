import type { FastifyReply, FastifyRequest } from 'fastify';
import { LOG_PAGE_SIZE, type NodeChange, type NodesEvent, type TaskChange, type TasksEvent } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type { AuthUser } from '../../http/auth.ts';
import type { LogEvent, NodesChangedEvent, TasksChangedEvent, TaskStatusEvent } from '../../events.ts';
import { canReadSpiderId } from '../../policies/index.ts';
import { presentTasks } from './tasks.service.ts';
import { announcedChanges } from './waiting-feed.ts';
import { getTask, logLinesAfter, type TaskRow } from './tasks.store.ts';

interface Sse {
  send(event: string, data: unknown): void;
  /** Sends data serialised already (one serialisation shared by many streams). */
  sendJson(event: string, json: string): void;
  onClose(fn: () => void): void;
}

/** Opens a Server-Sent Events response and returns a writer; the caller registers cleanup on `close`. */
export function openSse(req: FastifyRequest, reply: FastifyReply): Sse {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 2000\n\n');
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
  const closers: (() => void)[] = [() => clearInterval(ping)];
  req.raw.on('close', () => closers.forEach((fn) => fn()));
  const sendJson = (event: string, json: string) => {
    if (!res.writableEnded) res.write(`event: ${event}\ndata: ${json}\n\n`);
  };
  return {
    send: (event, data) => sendJson(event, JSON.stringify(data)),
    sendJson,
    onClose(fn) {
      closers.push(fn);
    },
  };
}

/**
 * One task's live view: its status now and at each change, its log lines after `from` (the stored backlog in
 * pages, then the lines as they arrive, none twice and none skipped).
 */
export async function streamTask(ctx: AppContext, t: TaskRow, from: number | undefined, sse: Sse): Promise<void> {
  const db = ctx.store.db;
  let lastSent = from ?? t.log_lines;
  let backlogDone = false;
  const buffered: LogEvent['lines'] = [];
  const onLog = (ev: LogEvent) => {
    if (ev.taskId !== t.id) return;
    if (!backlogDone) {
      buffered.push(...ev.lines);
      return;
    }
    const lines = ev.lines.filter((l) => l.line_no > lastSent);
    if (!lines.length) return;
    lastSent = lines[lines.length - 1].line_no;
    sse.send('log', lines);
  };
  const onStatus = (ev: TaskStatusEvent) => {
    if (ev.taskId !== t.id) return;
    void getTask(db, t.id).then(async (row) => row && sse.send('status', (await presentTasks(db, [row]))[0]));
  };
  ctx.events.on('task.log', onLog);
  ctx.events.on('task.status', onStatus);
  sse.onClose(() => {
    ctx.events.off('task.log', onLog);
    ctx.events.off('task.status', onStatus);
  });
  sse.send('status', (await presentTasks(db, [t]))[0]);
  for (;;) {
    const rows = await logLinesAfter(db, t.id, lastSent, LOG_PAGE_SIZE);
    if (!rows.length) break;
    sse.send(
      'log',
      rows.map((r) => ({ line_no: r.line_no, msg: r.msg, is_error: r.is_error === 1 })),
    );
    lastSent = rows[rows.length - 1].line_no;
  }
  backlogDone = true;
  const pending = buffered.filter((l) => l.line_no > lastSent);
  if (pending.length) {
    lastSent = pending[pending.length - 1].line_no;
    sse.send('log', pending);
  }
}

/**
 * The console's live feed: task status changes and node changes, each gathered per interval (`tasks` and `nodes`,
 * at most one event of each per interval). A normal user hears only of tasks of spiders the spider policy lets them
 * read, as the task list shows them, each pending one with why it waits (waiting-feed.ts); judged by spider so
 * that deletions (whose rows are gone) still reach them. One look-up per spider, kept for the stream's life. Nodes
 * are visible to every signed-in user (the node policy), so node changes go to everyone: status changes of every
 * node, heartbeats (metrics, last seen) of the `watched` nodes only.
 */
export function streamEvents(
  ctx: AppContext,
  user: AuthUser,
  watched: ReadonlySet<string>,
  sse: Sse,
  onError: (err: unknown) => void,
): void {
  const seen = new Map<string, Promise<boolean>>();
  const canSee = (spiderId: string): Promise<boolean> => {
    let yes = seen.get(spiderId);
    if (!yes) {
      yes = canReadSpiderId(ctx.store.db, user, spiderId);
      // A failed look-up is asked again with the next change rather than remembered.
      yes.catch(() => seen.delete(spiderId));
      seen.set(spiderId, yes);
    }
    return yes;
  };
  // Intervals go out in order even when a look-up of an earlier one takes longer: a task's latest status comes last.
  let sending = Promise.resolve();
  const onTasks = (ev: TasksChangedEvent) => {
    sending = sending
      .then(async () => {
        const all = await announcedChanges(ctx.store.db, ev);
        const tasks = await taskChangesFor(all, canSee);
        if (tasks.length) sse.sendJson('tasks', tasksEventJson(ev, tasks, all.length));
      })
      .catch(onError);
  };
  const onNodes = (ev: NodesChangedEvent) => {
    const nodes = nodeChangesFor(ev, watched);
    if (nodes.length) sse.send('nodes', { ts: new Date(ev.ts).toISOString(), nodes } satisfies NodesEvent);
  };
  ctx.events.on('tasks.changed', onTasks);
  ctx.events.on('nodes.changed', onNodes);
  sse.onClose(() => {
    ctx.events.off('tasks.changed', onTasks);
    ctx.events.off('nodes.changed', onNodes);
  });
}

/** What one console hears of an interval's task changes: those of spiders `canSee` lets it read, one ask per spider. */
export async function taskChangesFor(
  changes: TaskChange[],
  canSee: (spiderId: string) => Promise<boolean>,
): Promise<TaskChange[]> {
  const ids = [...new Set(changes.map((c) => c.spiderId))];
  const answers = await Promise.all(ids.map(canSee));
  const visible = new Set(ids.filter((_, i) => answers[i]));
  return changes.filter((c) => visible.has(c.spiderId));
}

/** The `tasks` event of every console that may see all of an interval's changes (admins), serialised once. */
const everyTaskJson = new WeakMap<TasksChangedEvent, string>();

function tasksEventJson(ev: TasksChangedEvent, tasks: TaskChange[], of: number): string {
  const all = tasks.length === of;
  let json = all ? everyTaskJson.get(ev) : undefined;
  if (!json) {
    json = JSON.stringify({ ts: new Date(ev.ts).toISOString(), tasks } satisfies TasksEvent);
    if (all) everyTaskJson.set(ev, json);
  }
  return json;
}

/** What one console hears of an interval's node changes: every status change, heartbeats of watched nodes. */
export function nodeChangesFor(ev: NodesChangedEvent, watched: ReadonlySet<string>): NodeChange[] {
  const out: NodeChange[] = [];
  for (const id of watched) {
    const c = ev.changes.get(id);
    if (!c || (!c.statusChanged && !c.heartbeat)) continue;
    out.push({
      nodeId: id,
      status: c.status,
      ...(c.heartbeat ? { metrics: c.heartbeat.metrics, last_seen_ts: new Date(c.heartbeat.ts).toISOString() } : {}),
    });
  }
  for (const id of ev.statusChanged) {
    if (!watched.has(id)) out.push({ nodeId: id, status: ev.changes.get(id)!.status });
  }
  return out;
}
