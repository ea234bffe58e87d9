import type { Kysely, Selectable } from 'kysely';
import type { DataSourceType } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';

/** The tables of this feature in the master's store (see migrations 2026112230_datasources, 2026120730). */
// A type alias (not an interface): Kysely's withTables needs an indexable record type.
export type DataSourceTables = {
  data_sources: {
    id: string;
    name: string;
    type: DataSourceType;
    host: string;
    port: number;
    database: string;
    username: string;
    /** encryptSecret() output, '' when none. */
    password_enc: string;
    schema: string;
    /** JSON DataSourceTls. */
    tls: string;
    create_ts: number;
    update_ts: number;
  };
  spider_targets: { spider_id: string; data_source_id: string; table_name: string };
  task_targets: {
    task_id: string;
    data_source_id: string;
    table_name: string;
    error: string;
    error_ts: number | null;
    /** Write attempts the target refused in a row (see migration 2026120730). */
    refusals: number;
  };
};

export type DataSourceRow = Selectable<DataSourceTables['data_sources']>;
export type TaskTargetRow = Selectable<DataSourceTables['task_targets']>;
type StoreDb = Kysely<DB>;

const tables = (db: StoreDb) => db.withTables<DataSourceTables>();

export function listDataSources(db: StoreDb): Promise<DataSourceRow[]> {
  return tables(db).selectFrom('data_sources').selectAll().orderBy('name').execute();
}

export function getDataSource(db: StoreDb, id: string): Promise<DataSourceRow | undefined> {
  return tables(db).selectFrom('data_sources').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function dataSourceNameTaken(db: StoreDb, name: string, exceptId = ''): Promise<boolean> {
  const row = await tables(db)
    .selectFrom('data_sources')
    .select('id')
    .where('name', '=', name)
    .where('id', '<>', exceptId)
    .executeTakeFirst();
  return !!row;
}

export async function insertDataSource(db: StoreDb, row: DataSourceRow): Promise<void> {
  await tables(db).insertInto('data_sources').values(row).execute();
}

export async function updateDataSource(db: StoreDb, id: string, patch: Partial<DataSourceRow>): Promise<void> {
  await tables(db).updateTable('data_sources').set(patch).where('id', '=', id).execute();
}

/**
 * Deletes the data source unless a spider points at it or tasks keep their results there (both checked in the same
 * transaction). Answers what kept it: a spider, or the number of tasks; nothing when it was deleted.
 */
export function deleteDataSourceUnused(db: StoreDb, id: string): Promise<{ spider?: true; tasks?: number }> {
  return db.transaction().execute(async (trx) => {
    const t = trx.withTables<DataSourceTables>();
    const used = await t
      .selectFrom('spider_targets')
      .select('spider_id')
      .where('data_source_id', '=', id)
      .limit(1)
      .executeTakeFirst();
    if (used) return { spider: true };
    const row = await t
      .selectFrom('task_targets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('data_source_id', '=', id)
      .executeTakeFirstOrThrow();
    if (Number(row.n) > 0) return { tasks: Number(row.n) };
    await t.deleteFrom('data_sources').where('id', '=', id).execute();
    return {};
  });
}

/** How many spiders write into each data source. */
export async function spiderCounts(db: StoreDb): Promise<Map<string, number>> {
  const rows = await tables(db)
    .selectFrom('spider_targets')
    .select(['data_source_id', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('data_source_id')
    .execute();
  return new Map(rows.map((r) => [r.data_source_id, Number(r.n)]));
}

/** All spiders, whatever data source they write to. */
export async function countAllSpiders(db: StoreDb): Promise<number> {
  const row = await tables(db)
    .selectFrom('spiders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function getSpiderTarget(db: StoreDb, spiderId: string) {
  return tables(db).selectFrom('spider_targets').selectAll().where('spider_id', '=', spiderId).executeTakeFirst();
}

/** Sets (or, with the built-in store, removes) where a spider's later tasks write. */
export async function putSpiderTarget(
  db: StoreDb,
  spiderId: string,
  dataSourceId: string,
  tableName: string,
): Promise<void> {
  const t = tables(db);
  if (!dataSourceId) {
    await t.deleteFrom('spider_targets').where('spider_id', '=', spiderId).execute();
    return;
  }
  await t
    .insertInto('spider_targets')
    .values({ spider_id: spiderId, data_source_id: dataSourceId, table_name: tableName })
    .onConflict((oc) => oc.column('spider_id').doUpdateSet({ data_source_id: dataSourceId, table_name: tableName }))
    .execute();
}

export function getTaskTarget(db: StoreDb, taskId: string): Promise<TaskTargetRow | undefined> {
  return tables(db).selectFrom('task_targets').selectAll().where('task_id', '=', taskId).executeTakeFirst();
}

/** The task's spider with its target of this moment (undefined when the task is gone). */
export async function taskSpiderTarget(db: StoreDb, taskId: string) {
  return tables(db)
    .selectFrom('tasks')
    .innerJoin('spiders', 'spiders.id', 'tasks.spider_id')
    .leftJoin('spider_targets', 'spider_targets.spider_id', 'tasks.spider_id')
    .select([
      'tasks.id as task_id',
      'spiders.id as spider_id',
      'spiders.name',
      'spiders.col',
      'tasks.item_offset',
      'spider_targets.data_source_id',
      'spider_targets.table_name',
    ])
    .where('tasks.id', '=', taskId)
    .executeTakeFirst();
}

/** Records where a task's items go; a task that has its record keeps it (the first record wins). */
export async function insertTaskTarget(
  db: StoreDb,
  taskId: string,
  dataSourceId: string,
  tableName: string,
): Promise<void> {
  await tables(db)
    .insertInto('task_targets')
    .values({
      task_id: taskId,
      data_source_id: dataSourceId,
      table_name: tableName,
      error: '',
      error_ts: null,
      refusals: 0,
    })
    .onConflict((oc) => oc.column('task_id').doNothing())
    .execute();
}

export async function deleteTaskTarget(db: StoreDb, taskId: string): Promise<void> {
  await tables(db).deleteFrom('task_targets').where('task_id', '=', taskId).execute();
}

/**
 * Records (or with '' clears) the write error a task shows while its data source refuses items, and counts the
 * refusals in a row (a write that failed for another reason, or succeeded, starts the count again); returns it.
 */
export async function setTaskTargetError(
  db: StoreDb,
  taskId: string,
  error: string,
  previous: string,
  refused: boolean,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .withTables<DataSourceTables>()
      .updateTable('task_targets')
      .set((eb) => ({ error, error_ts: error ? Date.now() : null, refusals: refused ? eb('refusals', '+', 1) : 0 }))
      .where('task_id', '=', taskId)
      .returning('refusals')
      .executeTakeFirst();
    // The task detail shows it as the task's error while the task has no error of its own.
    await trx
      .updateTable('tasks')
      .set({ error })
      .where('id', '=', taskId)
      .where((eb) => eb.or([eb('error', '=', ''), eb('error', '=', previous)]))
      .execute();
    return Number(row?.refusals ?? 0);
  });
}

/** Advances a task's item offset and result count after its items were committed in the target database. */
export async function advanceTaskItems(
  db: StoreDb,
  taskId: string,
  expectedOffset: number,
  newOffset: number,
  stored: number,
): Promise<void> {
  await db
    .updateTable('tasks')
    .set((eb) => ({ item_offset: newOffset, result_count: eb('result_count', '+', stored) }))
    .where('id', '=', taskId)
    .where('item_offset', '=', expectedOffset)
    .execute();
}

/** The task's item offset and its spider's owner (whose table the items may go to). */
export function taskOffset(db: StoreDb, taskId: string) {
  return db
    .selectFrom('tasks')
    .leftJoin('spiders', 'spiders.id', 'tasks.spider_id')
    .select(['tasks.id', 'tasks.spider_id', 'tasks.item_offset', 'tasks.status', 'tasks.node_id', 'spiders.owner_id'])
    .where('tasks.id', '=', taskId)
    .executeTakeFirst();
}
