/**
 * Concurrency limits as one dispatch pass sees them: a spider, and a project over all its spiders, may have at most
 * `max_running` tasks holding a node's slot (claimed or running); the others wait. The pass reads the limits and
 * the slots held once, counts its own claims, and leaves the spiders and projects that are full out of its reads of
 * the queue. The store decides: each claim under a limit counts again while it holds the spider's (and project's)
 * row, so masters sharing the store never go past a limit together.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import {
  claimWithinLimits,
  limitedSpidersAndProjects,
  slotsHeldByProjects,
  slotsHeldBySpiders,
  spiderLimits,
  type LimitedClaim,
  type QueuedTask,
  type SpiderLimit,
} from './queue.store.ts';

interface Counter {
  max: number;
  held: number;
}

export class ConcurrencyGate {
  /** Each queued spider's limits, filled per round for the spiders it read. */
  private readonly limits = new Map<string, SpiderLimit>();

  private constructor(
    private readonly db: Kysely<DB>,
    private readonly spiders: Map<string, Counter>,
    private readonly projects: Map<string, Counter>,
  ) {}

  /** The limits and the slots held now. */
  static async load(db: Kysely<DB>): Promise<ConcurrencyGate> {
    const limited = await limitedSpidersAndProjects(db);
    const [bySpider, byProject] = await Promise.all([
      slotsHeldBySpiders(db, [...limited.spiders.keys()]),
      slotsHeldByProjects(db, [...limited.projects.keys()]),
    ]);
    const counters = (max: Map<string, number>, held: Map<string, number>) =>
      new Map([...max].map(([id, m]) => [id, { max: m, held: held.get(id) ?? 0 }]));
    return new ConcurrencyGate(db, counters(limited.spiders, bySpider), counters(limited.projects, byProject));
  }

  /** Spiders whose limit is reached. */
  get fullSpiders(): string[] {
    return [...this.spiders].filter(([, c]) => c.held >= c.max).map(([id]) => id);
  }

  /** Projects whose limit is reached. */
  get fullProjects(): string[] {
    return [...this.projects].filter(([, c]) => c.held >= c.max).map(([id]) => id);
  }

  /** Reads the projects of the spiders a round read (a spider may have moved into a limited project). */
  async learn(queued: QueuedTask[]): Promise<void> {
    const unknown = [...new Set(queued.map((t) => t.spider_id))].filter((id) => !this.limits.has(id));
    for (const [id, limit] of await spiderLimits(this.db, unknown)) this.limits.set(id, limit);
  }

  /** Why the task may not start now, or undefined when no limit holds it back. */
  blocked(t: QueuedTask): 'spider_concurrency' | 'project_concurrency' | undefined {
    const s = this.spiders.get(t.spider_id);
    if (s && s.held >= s.max) return 'spider_concurrency';
    const p = this.projectOf(t);
    if (p && p.held >= p.max) return 'project_concurrency';
    return undefined;
  }

  /** Whether a claim of this task must be counted under a limit. */
  limited(t: QueuedTask): boolean {
    return this.spiders.has(t.spider_id) || this.projectOf(t) !== undefined;
  }

  /** Claims a limited task for a node in the store, and follows the outcome. */
  async claim(t: QueuedTask, nodeId: string): Promise<LimitedClaim> {
    const limit = this.limits.get(t.spider_id) ?? { spiderMax: 0, projectId: null, projectMax: 0 };
    const out = await claimWithinLimits(this.db, t, nodeId, limit);
    const s = this.spiders.get(t.spider_id);
    const p = this.projectOf(t);
    // Another master took the last slot: full until a slot frees (which starts a new pass).
    if (out === 'spider_concurrency' && s) s.held = s.max;
    if (out === 'project_concurrency' && p) p.held = p.max;
    if (out === 'claimed') {
      if (s) s.held++;
      if (p) p.held++;
    }
    return out;
  }

  private projectOf(t: QueuedTask): Counter | undefined {
    const projectId = this.limits.get(t.spider_id)?.projectId;
    return projectId ? this.projects.get(projectId) : undefined;
  }
}
