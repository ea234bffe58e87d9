import { tableIdentity, type DataSourceType } from '@crawldeck/shared';
import type { EngineMigration } from '../migrate.ts';

/**
 * Results tables in data sources are owned by the real table, not by the data-source entry: claims recorded as
 * `datasource:<entry id>/<table>` become the table's identity (server, database, schema, table), so a second entry
 * for the same database cannot reach a table another user owns. When two old claims name one table, the older
 * claim keeps it. `task_targets.refusals` counts the batches a task's results table refused in a row: after a few
 * the task fails with the reason instead of being retried forever.
 */
export const m2026120730_datasource_identity: EngineMigration = {
  async up(db) {
    await db.schema
      .alterTable('task_targets')
      .addColumn('refusals', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    const claims = await db
      .selectFrom('result_collections')
      .select(['name', 'owner_id', 'create_ts'])
      .where('name', 'like', 'datasource:%/%')
      .orderBy('create_ts')
      .orderBy('name')
      .execute();
    const sources = await db
      .selectFrom('data_sources')
      .select(['id', 'type', 'host', 'port', 'database', 'schema'])
      .execute();
    const byId = new Map(sources.map((s) => [s.id as string, s]));
    for (const c of claims as { name: string; owner_id: string; create_ts: number }[]) {
      const m = /^datasource:([^/]+)\/(.+)$/.exec(c.name);
      const s = m && byId.get(m[1]);
      if (!m || !s || m[1].includes(':')) continue;
      const address = { ...s, type: s.type as DataSourceType, port: Number(s.port) };
      await db
        .insertInto('result_collections')
        .values({ name: tableIdentity(address, m[2]), owner_id: c.owner_id, create_ts: c.create_ts })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      await db.deleteFrom('result_collections').where('name', '=', c.name).execute();
    }
  },
};
