/**
 * The few things tasks need from the spiders and variables features, in one place so the rest of the task code
 * does not depend on their module layout.
 */
import { spiderLimitsOf, type SpiderLimits, type TaskLimits } from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { getSpider } from '../spiders/spiders.store.ts';
import { listFiles, readBlob } from '../spiders/files.store.ts';
import { listVariablesAsEnv } from '../variables/variables.store.ts';

export interface SpiderForTask {
  id: string;
  name: string;
  cmd: string;
  /** Source folder of its files ('' for the root). */
  src: string;
  collection: string;
  isDedup: boolean;
  dedupField: string;
  dedupMethod: 'ignore' | 'overwrite';
  envs: Record<string, string>;
  ownerId: string | null;
  /** The spider's own task limits (0: the master's default). */
  limits: SpiderLimits;
}

/** A task's limits: the spider's own where it sets one, else the master's default (0 leaves it to the node). */
export function taskLimitsFor(defaults: Required<TaskLimits>, own: SpiderLimits): Required<TaskLimits> {
  return {
    memoryMb: own.memory_mb || defaults.memoryMb,
    cpuPercent: own.cpu_percent || defaults.cpuPercent,
    maxProcesses: own.max_processes || defaults.maxProcesses,
  };
}

export async function spiderForTask(db: Kysely<DB>, id: string): Promise<SpiderForTask | undefined> {
  const s = await getSpider(db, id);
  if (!s) return undefined;
  const env: Record<string, string> = {};
  try {
    for (const e of JSON.parse(s.envs || '[]') as { name?: string; value?: string }[])
      if (e?.name) env[e.name] = String(e.value ?? '');
  } catch {
    /* no envs */
  }
  return {
    id: s.id,
    name: s.name,
    cmd: s.cmd,
    src: s.src,
    collection: s.col || `results_${s.name}`,
    isDedup: s.is_dedup === 1,
    dedupField: s.dedup_field,
    dedupMethod: s.dedup_method === 'overwrite' ? 'overwrite' : 'ignore',
    envs: env,
    ownerId: s.owner_id,
    limits: spiderLimitsOf(s.limits),
  };
}

export async function spiderManifest(
  db: Kysely<DB>,
  spiderId: string,
): Promise<{ path: string; hash: string; size: number }[]> {
  const files = await listFiles(db, spiderId);
  return files.filter((f) => !f.is_dir && f.hash).map((f) => ({ path: f.path, hash: f.hash!, size: f.size }));
}

export const blobContent = (db: Kysely<DB>, hash: string) => readBlob(db, hash);
export const globalEnv = (db: Kysely<DB>) => listVariablesAsEnv(db);
