import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import { EMPTY_ID, RETRY_ON, spiderLimitsOf, type Spider, type SpiderEnv } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { iso } from '../../http/envelope.ts';
import { spiderReadFilter } from '../../policies/spider.policy.ts';
import type { Actor } from '../../policies/types.ts';
import { publicUrl } from '../../outbound/git.ts';

export type SpiderRow = Selectable<DB['spiders']>;

export function getSpider(db: Kysely<DB>, id: string): Promise<SpiderRow | undefined> {
  return db.selectFrom('spiders').selectAll().where('id', '=', id).executeTakeFirst();
}

function parseJson<T>(text: string, fallback: T): T {
  if (text === '{}' || text === '[]' || !text) return (text === '{}' ? {} : text === '[]' ? [] : fallback) as T;
  try {
    return (JSON.parse(text) as T) ?? fallback;
  } catch {
    return fallback;
  }
}

/** The spider as the API shows it: booleans, parsed JSON, ISO times; never the Git password. */
export function presentSpider(row: SpiderRow & { owner_username?: string | null }): Spider {
  return {
    _id: row.id,
    name: row.name,
    display_name: row.display_name || row.name,
    type: row.type,
    cmd: row.cmd,
    col: row.col,
    src: row.src,
    project_id: row.project_id,
    is_public: !!row.is_public,
    owner_id: row.owner_id,
    owner: row.owner_username ?? '',
    is_scrapy: !!row.is_scrapy,
    is_dedup: !!row.is_dedup,
    dedup_field: row.dedup_field,
    dedup_method: row.dedup_method,
    envs: parseJson<SpiderEnv[]>(row.envs, []),
    git_url: publicUrl(row.git_url),
    git_branch: row.git_branch,
    git_username: row.git_username,
    git_password_set: !!row.git_password_enc,
    git_auto_sync: !!row.git_auto_sync,
    config: parseJson<Record<string, unknown>>(row.config, {}),
    retries: Number(row.retries),
    retry_delay_seconds: Number(row.retry_delay_seconds),
    retry_on: RETRY_ON.filter((k) => row.retry_on.split(',').includes(k)),
    max_running: Number(row.max_running),
    limits: spiderLimitsOf(row.limits),
    create_ts: iso(row.create_ts),
    update_ts: iso(row.update_ts),
  };
}

/** Whoever lists spiders; which ones they see is the spider policy's filter. */
export type Viewer = Actor;

export interface SpiderFilter {
  keyword?: string;
  project_id?: string;
  type?: string;
}

const SORT_COLUMNS = {
  name: 'spiders.name',
  display_name: 'spiders.display_name',
  type: 'spiders.type',
  create_ts: 'spiders.create_ts',
  update_ts: 'spiders.update_ts',
  project_id: 'spiders.project_id',
  col: 'spiders.col',
} as const;

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

function filters(viewer: Viewer, f: SpiderFilter) {
  return (eb: ExpressionBuilder<DB, 'spiders'>): Expression<SqlBool> => {
    const conds: Expression<SqlBool>[] = [spiderReadFilter(viewer)(eb)];
    const keyword = f.keyword?.trim();
    if (keyword) {
      const pattern = `%${escapeLike(keyword.toLowerCase())}%`;
      conds.push(
        eb.or([
          sql<SqlBool>`lower(spiders.name) like ${pattern} escape '\\'`,
          sql<SqlBool>`lower(spiders.display_name) like ${pattern} escape '\\'`,
        ]),
      );
    }
    if (f.project_id) {
      if (f.project_id === EMPTY_ID || f.project_id === 'none') conds.push(eb('spiders.project_id', 'is', null));
      else conds.push(eb('spiders.project_id', '=', f.project_id));
    }
    if (f.type) conds.push(eb('spiders.type', '=', f.type as SpiderRow['type']));
    return eb.and(conds);
  };
}

/** One query for the page (owner names joined in), one for the count: no per-row queries. */
export async function listSpiders(
  db: Kysely<DB>,
  viewer: Viewer,
  f: SpiderFilter & { sort_key?: string; sort_direction?: string },
  page: { limit: number; offset: number },
): Promise<{ list: Spider[]; total: number }> {
  const where = filters(viewer, f);
  const sortCol = SORT_COLUMNS[(f.sort_key ?? '') as keyof typeof SORT_COLUMNS] ?? SORT_COLUMNS.create_ts;
  const dirText = (f.sort_direction ?? '').toLowerCase();
  const dir: 'asc' | 'desc' = dirText.startsWith('asc')
    ? 'asc'
    : dirText.startsWith('desc') || !f.sort_key
      ? 'desc'
      : 'asc';
  const [rows, count] = await Promise.all([
    db
      .selectFrom('spiders')
      .leftJoin('users', 'users.id', 'spiders.owner_id')
      .selectAll('spiders')
      .select('users.username as owner_username')
      .where(where)
      .orderBy(sortCol, dir)
      .orderBy('spiders.id', dir)
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('spiders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(where)
      .executeTakeFirstOrThrow(),
  ]);
  return { list: rows.map(presentSpider), total: Number(count.n) };
}

export async function getSpiderWithOwner(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('spiders')
    .leftJoin('users', 'users.id', 'spiders.owner_id')
    .selectAll('spiders')
    .select('users.username as owner_username')
    .where('spiders.id', '=', id)
    .executeTakeFirst();
}

/** Whether this owner already has a spider of this name. */
export async function spiderNameTaken(db: Kysely<DB>, ownerId: string, name: string): Promise<boolean> {
  return !!(await db
    .selectFrom('spiders')
    .select('id')
    .where('owner_id', '=', ownerId)
    .where('name', '=', name)
    .executeTakeFirst());
}

/** Stores a new spider; `withFiles` adds its files in the same transaction (all or nothing). */
export async function insertSpider<T>(
  db: Kysely<DB>,
  row: SpiderRow,
  withFiles?: (trx: Kysely<DB>) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction().execute(async (trx) => {
    await trx.insertInto('spiders').values(row).execute();
    return withFiles ? await withFiles(trx) : undefined;
  });
}

export type SpiderPatch = Partial<Omit<SpiderRow, 'id' | 'owner_id' | 'create_ts'>>;

/** Changes a spider's fields and its update time. */
export async function updateSpiderRow(db: Kysely<DB>, id: string, patch: SpiderPatch): Promise<void> {
  await db
    .updateTable('spiders')
    .set({ ...patch, update_ts: Date.now() })
    .where('id', '=', id)
    .execute();
}

/**
 * Deletes a spider (its files and other features' rows go by cascade; the store records it for the purge of its
 * tasks, spider-purge.ts) and returns the content hashes its files used, for the blob collector; undefined when
 * there was no such spider.
 */
export async function deleteSpiderRow(db: Kysely<DB>, id: string): Promise<(string | null)[] | undefined> {
  return db.transaction().execute(async (trx) => {
    const files = await trx
      .selectFrom('spider_files')
      .select('hash')
      .where('spider_id', '=', id)
      .where('hash', 'is not', null)
      .execute();
    const res = await trx.deleteFrom('spiders').where('id', '=', id).executeTakeFirst();
    return res.numDeletedRows ? files.map((f) => f.hash) : undefined;
  });
}

/** Sets a spider's command only while it has none (a command the user typed is never replaced). */
export async function setCommandIfEmpty(db: Kysely<DB>, id: string, cmd: string): Promise<void> {
  await db.updateTable('spiders').set({ cmd }).where('id', '=', id).where('cmd', '=', '').execute();
}

/** Deleted spiders whose tasks are still being deleted, oldest first (the store records them as spiders go). */
export async function spidersBeingPurged(db: Kysely<DB>): Promise<string[]> {
  const rows = await db.selectFrom('spider_purges').select('spider_id').orderBy('create_ts').execute();
  return rows.map((r) => r.spider_id);
}

/** The deleted spider has no task left. */
export async function endSpiderPurge(db: Kysely<DB>, spiderId: string): Promise<void> {
  await db.deleteFrom('spider_purges').where('spider_id', '=', spiderId).execute();
}
