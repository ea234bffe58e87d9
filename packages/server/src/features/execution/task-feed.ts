/**
 * The console's task feed: task status changes are gathered and handed on as one `tasks.changed` event holding
 * each changed task's latest status, at most one per interval. The first change after a quiet interval goes out
 * on the next turn of the event loop (a task just run shows at once); changes that follow within the interval wait
 * for its end and go out together. A busy master thus sends each console at most one task event per interval
 * however many tasks change, a quiet one without delay. Each console's stream keeps the tasks its user may read
 * (tasks.stream.ts). Nothing is gathered while no console listens.
 *
 * A node's status change (online, full, disabled, offline) goes out the same way, as a mark on the interval: the
 * reason a pending task waits follows the fleet, so the consoles are told it anew (tasks.stream.ts).
 *
 * The internal `task.status` event is untouched: webhooks, schedules, metrics and the per-task live view still
 * hear every change at once.
 */
import type { EventBus, TaskStatusEvent } from '../../events.ts';

/**
 * How often at most the gathered task changes go out: the node feed's interval, so a console hears at most one
 * task and one node event a second. Shorter would mostly multiply the lists the consoles refetch under load; a
 * task's own page does not wait for it (its stream is immediate).
 */
export const TASK_FEED_INTERVAL_MS = 1000;

export class TaskFeed {
  private changes = new Map<string, TaskStatusEvent>();
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  private fleetChanged = false;

  constructor(
    private readonly events: EventBus,
    readonly intervalMs = TASK_FEED_INTERVAL_MS,
  ) {}

  private readonly onStatus = (ev: TaskStatusEvent) => {
    if (!this.events.listenerCount('tasks.changed')) return;
    // Latest status wins; a task keeps the place of its first change in the interval.
    this.changes.set(ev.taskId, ev);
    this.schedule();
  };

  private readonly onNodeStatus = () => {
    if (!this.events.listenerCount('tasks.changed')) return;
    this.fleetChanged = true;
    this.schedule();
  };

  start(): void {
    this.events.on('task.status', this.onStatus);
    this.events.on('node.status', this.onNodeStatus);
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.events.off('task.status', this.onStatus);
    this.events.off('node.status', this.onNodeStatus);
  }

  /** Flushes at the end of the interval that began with the previous flush (at once if that one is over). */
  private schedule(): void {
    // Only heard between start() and close(): no timer is set on a closed feed.
    if (this.timer) return;
    const wait = Math.max(0, this.lastFlush + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
    this.timer.unref();
  }

  /** Hands the gathered changes on, if there are any. */
  flush(now = Date.now()): void {
    if (!this.changes.size && !this.fleetChanged) return;
    const changes = this.changes;
    const fleetChanged = this.fleetChanged;
    this.changes = new Map();
    this.fleetChanged = false;
    this.lastFlush = now;
    this.events.emit('tasks.changed', { ts: now, changes, ...(fleetChanged ? { fleetChanged } : {}) });
  }
}
