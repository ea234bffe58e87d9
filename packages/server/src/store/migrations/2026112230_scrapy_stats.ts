import type { EngineMigration } from '../migrate.ts';

/**
 * Statistics of Scrapy runs read from their logs: one row per task with the parser's state and counts (how many
 * log lines it has read, so a restart continues where it stopped), and one row per "Crawled … scraped …" sample.
 * Both go with their task.
 */
export const m2026112230_scrapy_stats: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('scrapy_task_stats')
      .addColumn('task_id', 'text', (c) => c.primaryKey().references('tasks.id').onDelete('cascade'))
      .addColumn('spider_id', 'text', (c) => c.notNull())
      .addColumn('is_scrapy', 'integer', (c) => c.notNull())
      .addColumn('parsed_lines', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('state', 'text', (c) => c.notNull()) // JSON of the parser state (counts, dump, whether inside it)
      .addColumn('samples', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('scrapy_task_stats_spider_idx').on('scrapy_task_stats').column('spider_id').execute();
    await db.schema
      .createTable('scrapy_task_samples')
      .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('pages', 'integer', (c) => c.notNull())
      .addColumn('items', 'integer', (c) => c.notNull())
      .addColumn('pages_per_min', 'integer', (c) => c.notNull())
      .addColumn('items_per_min', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('scrapy_task_samples_pk', ['task_id', 'seq'])
      .execute();
  },
};
