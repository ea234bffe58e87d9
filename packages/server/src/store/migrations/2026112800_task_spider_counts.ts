import { sql, type Kysely } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * SQLite only, for the purge of a deleted spider's tasks (spider-purge.ts):
 * - How many tasks each spider holds in each status, kept by triggers beside the store's per-status counts. The
 *   per-status totals leave out the tasks of spiders being purged by taking away these few rows, at once when the
 *   spider goes, where counting the spider's tasks would walk all of them on the master's only thread. A spider's
 *   rows go when its purge ends (its counts are all zero by then).
 * - A deleted task without log lines is no longer handed to the log indexer: it never had a line indexed, and a
 *   spider of millions of tasks without lines would fill the indexer's list with millions of ids for nothing.
 */
export const m2026112800_task_spider_counts: EngineMigration = {
  async up(db, t) {
    if (t.engine !== 'sqlite') return;
    await spiderCounts(db);
    await sql`DROP TRIGGER IF EXISTS tasks_retire`.execute(db);
    await sql`CREATE TRIGGER tasks_retire AFTER DELETE ON tasks WHEN old.log_lines > 0 BEGIN
      INSERT OR IGNORE INTO task_log_retired (task_id) VALUES (old.id);
    END`.execute(db);
  },
};

async function spiderCounts(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE task_spider_counts (spider_id TEXT NOT NULL, status TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (spider_id, status)) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO task_spider_counts (spider_id, status, n)
    SELECT spider_id, status, COUNT(*) FROM tasks GROUP BY spider_id, status`.execute(db);
  await sql`CREATE TRIGGER tasks_spider_count_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO task_spider_counts (spider_id, status, n) VALUES (new.spider_id, new.status, 1)
      ON CONFLICT (spider_id, status) DO UPDATE SET n = n + 1;
  END`.execute(db);
  await sql`CREATE TRIGGER tasks_spider_count_delete AFTER DELETE ON tasks BEGIN
    UPDATE task_spider_counts SET n = n - 1 WHERE spider_id = old.spider_id AND status = old.status;
  END`.execute(db);
  await sql`CREATE TRIGGER tasks_spider_count_status AFTER UPDATE OF status ON tasks
    WHEN new.status IS NOT old.status BEGIN
    UPDATE task_spider_counts SET n = n - 1 WHERE spider_id = old.spider_id AND status = old.status;
    INSERT INTO task_spider_counts (spider_id, status, n) VALUES (new.spider_id, new.status, 1)
      ON CONFLICT (spider_id, status) DO UPDATE SET n = n + 1;
  END`.execute(db);
  await sql`CREATE TRIGGER spider_purges_end AFTER DELETE ON spider_purges BEGIN
    DELETE FROM task_spider_counts WHERE spider_id = old.spider_id;
  END`.execute(db);
}
