import { sql, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { Project, ProjectTag } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { iso } from '../../http/envelope.ts';
import type { Viewer } from '../spiders/spiders.store.ts';
import { spiderReadFilter } from '../../policies/index.ts';

export type ProjectRow = Selectable<DB['projects']>;

export interface NewProject {
  id: string;
  name: string;
  description: string;
  max_running: number;
  owner_id: string;
  tags: string[];
  now: number;
}

/** Stores a project and its tags together. */
export async function insertProject(db: Kysely<DB>, p: NewProject): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('projects')
      .values({
        id: p.id,
        name: p.name,
        description: p.description,
        max_running: p.max_running,
        owner_id: p.owner_id,
        create_ts: p.now,
        update_ts: p.now,
      })
      .execute();
    await setTags(trx, p.id, p.tags);
  });
}

/** The fields of a project an edit may change. */
export interface ProjectPatch {
  name?: string;
  description?: string;
  max_running?: number;
  update_ts: number;
}

/** Changes a project's fields and, when given, replaces its tags. */
export async function updateProject(
  db: Kysely<DB>,
  id: string,
  patch: ProjectPatch,
  tags: string[] | undefined,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('projects').set(patch).where('id', '=', id).execute();
    if (tags) await setTags(trx, id, tags);
  });
}

/** Deletes a project; its spiders stay, without a project. */
export async function deleteProject(db: Kysely<DB>, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('spiders').set({ project_id: null }).where('project_id', '=', id).execute();
    await trx.deleteFrom('projects').where('id', '=', id).execute();
  });
}

export type SpiderAccessRow = { id: string; owner_id: string; is_public: number };

/**
 * Moves spiders into a project (null: none), all or none: `check` sees every chunk of spiders before it moves
 * and throws to stop (a missing spider, one the caller may not change). Returns how many moved.
 */
export async function setSpidersProject(
  db: Kysely<DB>,
  ids: string[],
  projectId: string | null,
  check: (wanted: string[], found: SpiderAccessRow[]) => void,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let n = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = await trx
        .selectFrom('spiders')
        .select(['id', 'owner_id', 'is_public'])
        .where('id', 'in', chunk)
        .execute();
      check(chunk, rows);
      const res = await trx
        .updateTable('spiders')
        .set({ project_id: projectId, update_ts: Date.now() })
        .where('id', 'in', chunk)
        .executeTakeFirst();
      n += Number(res.numUpdatedRows);
    }
    return n;
  });
}

export function getProject(db: Kysely<DB>, id: string) {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Trims, drops empties and duplicates, keeps the order given. */
export function cleanTags(tags: string[] | undefined): string[] | undefined {
  if (!tags) return undefined;
  return [...new Set(tags.map((t) => t.trim()).filter(Boolean))];
}

export async function setTags(db: Kysely<DB>, projectId: string, tags: string[]): Promise<void> {
  await db.deleteFrom('project_tags').where('project_id', '=', projectId).execute();
  if (tags.length)
    await db
      .insertInto('project_tags')
      .values(tags.map((tag) => ({ project_id: projectId, tag })))
      .execute();
}

/** Projects with their tags and the spiders the viewer can see in them: three queries whatever the count. */
export async function listProjects(
  db: Kysely<DB>,
  viewer: Viewer,
  f: { tag?: string; keyword?: string; id?: string },
): Promise<Project[]> {
  let q = db.selectFrom('projects').selectAll();
  if (f.id) q = q.where('id', '=', f.id);
  if (f.tag)
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('project_tags')
          .select('project_tags.tag')
          .whereRef('project_tags.project_id', '=', 'projects.id')
          .where('project_tags.tag', '=', f.tag!),
      ),
    );
  const keyword = f.keyword?.trim().toLowerCase();
  if (keyword) {
    const pattern = `%${keyword.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    q = q.where((eb) =>
      eb.or([
        sql<SqlBool>`lower(projects.name) like ${pattern} escape '\\'`,
        sql<SqlBool>`lower(projects.description) like ${pattern} escape '\\'`,
      ]),
    );
  }
  const rows = await q.orderBy('create_ts', 'desc').orderBy('id', 'desc').execute();
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const [tags, spiders] = await Promise.all([
    db.selectFrom('project_tags').select(['project_id', 'tag']).where('project_id', 'in', ids).execute(),
    db
      .selectFrom('spiders')
      .select(['id', 'project_id'])
      .where('project_id', 'in', ids)
      .where(spiderReadFilter(viewer))
      .orderBy('id')
      .execute(),
  ]);
  const tagsBy = new Map<string, string[]>();
  for (const t of tags) tagsBy.set(t.project_id, [...(tagsBy.get(t.project_id) ?? []), t.tag]);
  const spidersBy = new Map<string, string[]>();
  for (const s of spiders) spidersBy.set(s.project_id!, [...(spidersBy.get(s.project_id!) ?? []), s.id]);
  return rows.map((r) => presentProject(r, (tagsBy.get(r.id) ?? []).sort(), spidersBy.get(r.id) ?? []));
}

export function presentProject(row: ProjectRow, tags: string[], spiders: string[]): Project {
  return {
    _id: row.id,
    name: row.name,
    description: row.description,
    tags,
    tag: tags,
    spiders,
    spider_count: spiders.length,
    max_running: row.max_running,
    owner_id: row.owner_id,
    create_ts: iso(row.create_ts),
    update_ts: iso(row.update_ts),
  };
}

export async function listTags(db: Kysely<DB>): Promise<ProjectTag[]> {
  const rows = await db
    .selectFrom('project_tags')
    .select(['tag', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('tag')
    .orderBy('count', 'desc')
    .orderBy('tag')
    .execute();
  return rows.map((r) => ({ tag: r.tag, count: Number(r.count) }));
}
