import type { EngineMigration } from '../migrate.ts';

/**
 * The Scrapyd-compatible web service: the versions uploaded to a spider as eggs (kept so that deleting the newest
 * brings the one before it back), and the Scrapyd job id, Scrapy spider, arguments and settings of each task it
 * started. Both go with their spider; a job row whose task was deleted is no longer listed (lists join the tasks).
 */
export const m2026120930_scrapyd: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('scrapyd_versions')
      .addColumn('spider_id', 'text', (c) => c.notNull().references('spiders.id').onDelete('cascade'))
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('egg', t.blob, (c) => c.notNull())
      .addColumn('upload_ts', t.ts, (c) => c.notNull())
      .addPrimaryKeyConstraint('scrapyd_versions_pk', ['spider_id', 'version'])
      .execute();
    await db.schema
      .createTable('scrapyd_jobs')
      .addColumn('task_id', 'text', (c) => c.primaryKey())
      .addColumn('spider_id', 'text', (c) => c.notNull().references('spiders.id').onDelete('cascade'))
      .addColumn('job_id', 'text', (c) => c.notNull())
      .addColumn('scrapy_spider', 'text', (c) => c.notNull())
      .addColumn('version', 'text')
      .addColumn('args', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
      .addUniqueConstraint('scrapyd_jobs_job_uq', ['spider_id', 'job_id'])
      .execute();
    // status.json may name a job without its project.
    await db.schema.createIndex('scrapyd_jobs_job_idx').on('scrapyd_jobs').column('job_id').execute();
  },
};
