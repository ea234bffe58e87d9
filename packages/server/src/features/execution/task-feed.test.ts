import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus, type TasksChangedEvent, type TaskStatusEvent } from '../../events.ts';
import { TaskFeed } from './task-feed.ts';

const INTERVAL = 1000;

function status(taskId: string, s: string): TaskStatusEvent {
  return { taskId, status: s, spiderId: 'sp', nodeId: 'n', scheduleId: null, parentId: null, error: '' };
}

/** What the feed handed on: per event, each task's status in the event's order. */
function heard(events: TasksChangedEvent[]): [string, string][][] {
  return events.map((e) => [...e.changes.values()].map((c) => [c.taskId, c.status] as [string, string]));
}

describe('task feed', () => {
  let bus: EventBus;
  let feed: TaskFeed;
  let got: TasksChangedEvent[];
  const listen = (ev: TasksChangedEvent) => got.push(ev);

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
    bus = new EventBus();
    feed = new TaskFeed(bus, INTERVAL);
    feed.start();
    got = [];
  });
  afterEach(() => {
    feed.close();
    vi.useRealTimers();
  });

  it('hands the first change of a quiet feed on at once, later ones at the end of the interval, latest only', () => {
    bus.on('tasks.changed', listen);
    bus.emit('task.status', status('a', 'pending'));
    expect(got).toHaveLength(0);
    vi.advanceTimersByTime(0);
    expect(heard(got)).toEqual([[['a', 'pending']]]);
    vi.advanceTimersByTime(100);
    for (const s of ['running', 'finished']) bus.emit('task.status', status('a', s));
    bus.emit('task.status', status('b', 'pending'));
    bus.emit('task.status', status('b', 'running'));
    vi.advanceTimersByTime(INTERVAL - 101);
    expect(got).toHaveLength(1);
    vi.advanceTimersByTime(1);
    // One event for the interval: a keeps its place (it changed first), each task once with its latest status.
    expect(heard(got)).toEqual([
      [['a', 'pending']],
      [
        ['a', 'finished'],
        ['b', 'running'],
      ],
    ]);
    expect(got[1].ts - got[0].ts).toBe(INTERVAL);
    // Quiet again for a whole interval: the next change goes out at once.
    vi.advanceTimersByTime(5 * INTERVAL);
    bus.emit('task.status', status('c', 'pending'));
    vi.advanceTimersByTime(0);
    expect(heard(got).at(-1)).toEqual([['c', 'pending']]);
  });

  it('gathers nothing while no console listens', () => {
    bus.emit('task.status', status('a', 'pending'));
    vi.advanceTimersByTime(0);
    bus.on('tasks.changed', listen);
    feed.flush();
    vi.advanceTimersByTime(2 * INTERVAL);
    expect(got).toEqual([]);
    bus.emit('task.status', status('b', 'pending'));
    vi.advanceTimersByTime(INTERVAL);
    expect(heard(got)).toEqual([[['b', 'pending']]]);
  });

  it("marks the interval in which a node's status changed, with or without task changes", () => {
    bus.on('tasks.changed', listen);
    bus.emit('node.status', { nodeId: 'n', status: 'unavailable' });
    vi.advanceTimersByTime(0);
    expect(got.map((e) => [e.fleetChanged, e.changes.size])).toEqual([[true, 0]]);
    bus.emit('task.status', status('a', 'pending'));
    vi.advanceTimersByTime(INTERVAL);
    expect(got.map((e) => [e.fleetChanged, e.changes.size])).toEqual([
      [true, 0],
      [undefined, 1],
    ]);
  });

  it('stops listening when closed', () => {
    bus.on('tasks.changed', listen);
    feed.close();
    bus.emit('task.status', status('a', 'pending'));
    vi.advanceTimersByTime(2 * INTERVAL);
    expect(got).toEqual([]);
    expect(bus.listenerCount('task.status')).toBe(0);
    expect(bus.listenerCount('node.status')).toBe(0);
  });
});
