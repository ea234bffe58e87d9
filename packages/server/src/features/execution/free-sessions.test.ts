import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { loadOf, takesWork } from './free-sessions.ts';
import { SessionTable, type Session } from './sessions.ts';

// The index of free sessions must choose exactly what a walk over every session would: the least loaded that takes
// work (load, then tasks held, then the order the nodes connected), with the master's own node only when allowed.

/** A connection as the index sees it: open (1) or closed (3). */
const conn = () => ({ readyState: 1, send: () => undefined, close: () => undefined }) as unknown as WebSocket;

function open(table: SessionTable, nodeId: string, maxRunners: number, isMaster = false): Session {
  return table.open({ nodeId, socket: conn(), enabled: true, maxRunners, isMaster, lastSeenTs: 0 });
}

/** The choice the walk over all sessions makes, in connection order. */
function walk(all: Session[], masterAllowed: boolean): Session | undefined {
  let best: Session | undefined;
  for (const s of all) {
    if (!takesWork(s) || (s.isMaster && !masterAllowed)) continue;
    if (!best || loadOf(s) < loadOf(best) || (loadOf(s) === loadOf(best) && s.active.size < best.active.size)) best = s;
  }
  return best;
}

/** A small deterministic random sequence, so a failure can be replayed. */
function rng(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('free sessions', () => {
  it('chooses what a walk over every session chooses, through opens, closes, tasks, pauses and settings', () => {
    const table = new SessionTable();
    const rand = rng(7);
    const live: Session[] = [];
    let tasks = 0;
    for (let step = 0; step < 5_000; step++) {
      const r = rand();
      const s = live[Math.floor(rand() * live.length)];
      if (r < 0.1 || !s) {
        const n = open(table, `n${step}`, 1 + Math.floor(rand() * 6), live.length === 3);
        live.push(n);
      } else if (r < 0.13) {
        table.delete(s.nodeId);
        live.splice(live.indexOf(s), 1);
      } else if (r < 0.5) {
        const chosen = table.free.leastLoaded(true);
        expect(chosen).toBe(walk(live, true));
        if (chosen) chosen.addTask(`t${tasks++}`);
      } else if (r < 0.8) {
        const first = [...s.active][0];
        if (first) s.removeTask(first);
      } else if (r < 0.88) s.setPaused(!s.paused);
      else if (r < 0.94) s.configure(rand() < 0.8, 1 + Math.floor(rand() * 6));
      else expect(table.free.leastLoaded(false)).toBe(walk(live, false));
      const free = live.filter(takesWork);
      expect(table.free.size).toBe(free.length);
      expect(table.free.slots).toBe(free.reduce((n, f) => n + f.maxRunners - f.active.size, 0));
      expect([...table.free.ids].sort()).toEqual(free.map((f) => f.nodeId).sort());
    }
  });

  it('a closed connection leaves the index when it would be chosen', () => {
    const table = new SessionTable();
    const a = open(table, 'a', 4);
    const b = open(table, 'b', 4);
    (a.socket as { readyState: number }).readyState = 3;
    expect(table.free.leastLoaded(true)).toBe(b);
    expect(table.free.ids.has('a')).toBe(false);
    expect(table.free.slots).toBe(4);
  });

  it('choosing a session costs the same at 50 and at 5 000 sessions; keeping the order grows with log n', () => {
    const cost = (n: number) => {
      const table = new SessionTable();
      for (let i = 0; i < n; i++) open(table, `n${i}`, 4);
      const w0 = { ...table.free.work };
      const placements = 1_000;
      const held: [Session, string][] = [];
      for (let i = 0; i < placements; i++) {
        const s = table.free.leastLoaded(true)!;
        s.addTask(`t${i}`);
        held.push([s, `t${i}`]);
        // Tasks finish as they do under load, so the heap keeps moving.
        if (held.length > 50) {
          const [f, id] = held.shift()!;
          f.removeTask(id);
        }
      }
      const w = table.free.work;
      return { visited: (w.visited - w0.visited) / placements, steps: (w.steps - w0.steps) / placements };
    };
    const small = cost(50);
    const large = cost(5_000);
    expect(small.visited).toBe(1);
    expect(large.visited).toBe(1);
    // ×100 sessions: log2 grows from ≈5.6 to ≈12.3; a walk over the sessions would grow ×100.
    expect(large.steps / small.steps).toBeLessThan(3);
    expect(large.steps).toBeLessThan(4 * Math.log2(5_000));
  });
});
