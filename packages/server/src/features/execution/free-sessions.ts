/**
 * The sessions that may take a task right now, kept up to date as sessions open and close, tasks are handed out and
 * come back, and nodes pause or change their settings, so dispatch never walks the whole fleet: the least loaded
 * session is the top of a heap (load, then tasks held, then the order the nodes connected), the free slots are a
 * running total, and the free node ids a set. A change to one session costs O(log n); choosing a session costs
 * O(1) plus one step per session passed over.
 */
import type { Session } from './sessions.ts';

/** Whether the session may take a task now: enabled, not paused, a slot free, its connection open. */
export function takesWork(s: Session): boolean {
  return s.enabled && !s.paused && s.active.size < s.maxRunners && s.socket.readyState === 1;
}

/** Share of the node's runners in use: dispatch fills the least loaded node first. */
export function loadOf(s: Session): number {
  return s.active.size / s.maxRunners;
}

interface Entry {
  s: Session;
  /** When the node first connected to this master: ties go to the earlier one. */
  seq: number;
  load: number;
  held: number;
  /** The slots this entry adds to the total (0 while out of the heap). */
  slots: number;
  /** Position in the heap, -1 while out. */
  pos: number;
}

/** Work done by the index, for tests that check it does not grow with the fleet. */
export interface FreeSessionsWork {
  /** Sessions looked at to choose one (the top, and any passed over). */
  visited: number;
  /** Heap steps (one comparison and swap each) to keep the order after a change. */
  steps: number;
}

export class FreeSessions {
  private readonly heap: Entry[] = [];
  private readonly entries = new Map<string, Entry>();
  private seq = 0;
  private freeSlots = 0;
  private masters = 0;
  private unsandboxed = 0;
  /** Ids of the nodes whose session takes work (read as it is; callers do not change it). */
  readonly ids = new Set<string>();
  readonly work: FreeSessionsWork = { visited: 0, steps: 0 };

  /** Free runner slots over all free sessions. */
  get slots(): number {
    return this.freeSlots;
  }

  get size(): number {
    return this.heap.length;
  }

  /** Whether one of the free sessions cannot sandbox its tasks. */
  get hasUnsandboxed(): boolean {
    return this.unsandboxed > 0;
  }

  /** Whether one of the free sessions is a master's own node. */
  get hasMaster(): boolean {
    return this.masters > 0;
  }

  /** A session opened (a node's earlier session on this master is replaced, keeping its place in ties). */
  open(s: Session): void {
    const old = this.entries.get(s.nodeId);
    if (old) this.leave(old);
    const e: Entry = { s, seq: old?.seq ?? this.seq++, load: 0, held: 0, slots: 0, pos: -1 };
    this.entries.set(s.nodeId, e);
    this.update(s);
  }

  close(nodeId: string): void {
    const e = this.entries.get(nodeId);
    if (!e) return;
    this.leave(e);
    this.entries.delete(nodeId);
  }

  /** Something that decides whether and how much the session takes changed: its place is set again. */
  update(s: Session): void {
    const e = this.entries.get(s.nodeId);
    if (!e || e.s !== s) return;
    if (!takesWork(s)) return this.leave(e);
    const was = e.pos >= 0 ? { load: e.load, held: e.held } : undefined;
    e.load = loadOf(s);
    e.held = s.active.size;
    this.freeSlots += s.maxRunners - s.active.size - e.slots;
    e.slots = s.maxRunners - s.active.size;
    if (!was) return this.enter(e);
    if (was.load !== e.load || was.held !== e.held) this.siftDown(this.siftUp(e.pos));
  }

  /**
   * The least loaded free session, skipping masters' own nodes unless `masterAllowed`; undefined when none.
   * A session whose connection closed meanwhile leaves the index here (its close event removes it for good).
   */
  leastLoaded(masterAllowed: boolean, unsandboxedAllowed = true): Session | undefined {
    const passed: Entry[] = [];
    let found: Session | undefined;
    while (this.heap.length) {
      const top = this.heap[0];
      this.work.visited++;
      if (top.s.socket.readyState !== 1) {
        this.leave(top);
        continue;
      }
      if ((top.s.isMaster && !masterAllowed) || (!top.s.sandboxed && !unsandboxedAllowed)) {
        passed.push(top);
        this.leave(top);
        continue;
      }
      found = top.s;
      break;
    }
    for (const e of passed) this.update(e.s);
    return found;
  }

  private enter(e: Entry): void {
    e.pos = this.heap.length;
    this.heap.push(e);
    this.ids.add(e.s.nodeId);
    if (e.s.isMaster) this.masters++;
    if (!e.s.sandboxed) this.unsandboxed++;
    this.siftUp(e.pos);
  }

  private leave(e: Entry): void {
    if (e.pos < 0) return;
    const at = e.pos;
    const last = this.heap.pop()!;
    if (last !== e) {
      this.heap[at] = last;
      last.pos = at;
      this.siftDown(this.siftUp(at));
    }
    e.pos = -1;
    this.freeSlots -= e.slots;
    e.slots = 0;
    this.ids.delete(e.s.nodeId);
    if (e.s.isMaster) this.masters--;
    if (!e.s.sandboxed) this.unsandboxed--;
  }

  private before(a: Entry, b: Entry): boolean {
    this.work.steps++;
    return a.load < b.load || (a.load === b.load && (a.held < b.held || (a.held === b.held && a.seq < b.seq)));
  }

  private siftUp(i: number): number {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(h[i], h[p])) break;
      this.swap(i, p);
      i = p;
    }
    return i;
  }

  private siftDown(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.before(h[l], h[m])) m = l;
      if (r < h.length && this.before(h[r], h[m])) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(i: number, j: number): void {
    const h = this.heap;
    [h[i], h[j]] = [h[j], h[i]];
    h[i].pos = i;
    h[j].pos = j;
  }
}
