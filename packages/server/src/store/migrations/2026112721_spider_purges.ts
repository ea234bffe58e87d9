import { sql, type Kysely } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * Spiders whose tasks are still being deleted. A spider's tasks (with their log lines and items) can be millions of
 * rows: deleting them by cascade in the spider's own transaction held the store, and on SQLite the master's only
 * thread, for the whole of them. Now a deleted spider is gone at once and its tasks go afterwards in short chunks
 * (spider-purge.ts). The store itself queues the purge: a trigger on the spiders table records every deleted spider,
 * whichever way it went (its own deletion, or its owner's). The tasks table no longer references spiders, so no
 * deletion of a spider cascades into its tasks.
 */
export const m2026112721_spider_purges: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('spider_purges')
      .addColumn('spider_id', 'text', (c) => c.primaryKey())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    if (t.engine === 'sqlite') {
      await dropSqliteSpiderReference(db);
      await sql`CREATE TRIGGER spiders_purge_tasks AFTER DELETE ON spiders BEGIN
        INSERT OR IGNORE INTO spider_purges (spider_id, create_ts)
        VALUES (old.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
      END`.execute(db);
      return;
    }
    await sql`ALTER TABLE tasks DROP CONSTRAINT IF EXISTS tasks_spider_id_fkey`.execute(db);
    await sql`CREATE FUNCTION spiders_purge_tasks() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        INSERT INTO spider_purges (spider_id, create_ts)
        VALUES (old.id, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER spiders_purge_tasks AFTER DELETE ON spiders
      FOR EACH ROW EXECUTE FUNCTION spiders_purge_tasks()`.execute(db);
  },
};

const SPIDER_REFERENCE = /\s+references\s+"spiders"\s*\(\s*"id"\s*\)\s+on\s+delete\s+cascade/i;

/**
 * SQLite cannot drop a column's reference: the tasks table is built again without it (the documented way: a new
 * table, the rows copied, the old table dropped and the new one renamed, then its indexes and triggers made again
 * from their stored definitions). Foreign keys are off meanwhile, so dropping the old table touches no log line.
 * On a store of millions of tasks this takes minutes, once.
 */
async function dropSqliteSpiderReference(db: Kysely<any>): Promise<void> {
  const schema = (
    await sql<{ type: string; name: string; sql: string | null }>`
      SELECT type, name, sql FROM sqlite_schema WHERE tbl_name = 'tasks'`.execute(db)
  ).rows;
  const table = schema.find((r) => r.type === 'table')?.sql ?? '';
  if (!SPIDER_REFERENCE.test(table)) return;
  const rebuilt = table.replace(SPIDER_REFERENCE, '').replace(/^CREATE TABLE "tasks"/i, 'CREATE TABLE "tasks_rebuilt"');
  const others = schema.filter((r) => r.type !== 'table' && r.sql).map((r) => r.sql!);
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    // Inside a transaction the pragma does nothing, and dropping the old table would then delete every log line.
    const fk = await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(db);
    if (Number(fk.rows[0]?.foreign_keys)) throw new Error('foreign keys could not be turned off to rebuild tasks');
    await db.transaction().execute(async (trx) => {
      await sql.raw(rebuilt).execute(trx);
      await sql`INSERT INTO tasks_rebuilt SELECT * FROM tasks`.execute(trx);
      await sql`DROP TABLE tasks`.execute(trx);
      await sql`ALTER TABLE tasks_rebuilt RENAME TO tasks`.execute(trx);
      for (const definition of others) await sql.raw(definition).execute(trx);
    });
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
