import type { EngineMigration } from '../migrate.ts';

/**
 * Spiders, their content-addressed files, projects (with their tags) and global variables.
 * Other features' tables (tasks, schedules, results) reference spiders.id with ON DELETE CASCADE.
 */
export const m2026112202_spiders: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('owner_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('project_tags')
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('tag', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('project_tags_pk', ['project_id', 'tag'])
      .execute();
    await db.schema.createIndex('project_tags_tag_idx').on('project_tags').column('tag').execute();

    await db.schema
      .createTable('spiders')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('type', 'text', (c) => c.notNull().defaultTo('customized'))
      .addColumn('cmd', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('col', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('src', 'text', (c) => c.notNull().defaultTo(''))
      // No FK: deleting a project sets it to null in the same transaction (projects.service).
      .addColumn('project_id', 'text')
      .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('is_scrapy', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('is_dedup', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('dedup_field', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('dedup_method', 'text', (c) => c.notNull().defaultTo('ignore'))
      .addColumn('envs', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('git_url', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('git_branch', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('git_username', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('git_password_enc', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('git_auto_sync', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('config', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .addUniqueConstraint('spiders_owner_name_uq', ['owner_id', 'name'])
      .execute();
    // owner_id is the leading column of the unique constraint's index.
    await db.schema.createIndex('spiders_project_idx').on('spiders').column('project_id').execute();
    await db.schema.createIndex('spiders_name_idx').on('spiders').column('name').execute();
    await db.schema.createIndex('spiders_create_idx').on('spiders').columns(['create_ts', 'id']).execute();

    await db.schema
      .createTable('blobs')
      .addColumn('hash', 'text', (c) => c.primaryKey())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('content', t.blob, (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('spider_files')
      .addColumn('spider_id', 'text', (c) => c.notNull().references('spiders.id').onDelete('cascade'))
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('is_dir', 'integer', (c) => c.notNull().defaultTo(0))
      // A referenced blob cannot be garbage-collected from under a file (the GC is best-effort and skips it).
      .addColumn('hash', 'text', (c) => c.references('blobs.hash'))
      .addColumn('size', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .addPrimaryKeyConstraint('spider_files_pk', ['spider_id', 'path'])
      .execute();
    await db.schema.createIndex('spider_files_hash_idx').on('spider_files').column('hash').execute();

    await db.schema
      .createTable('variables')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('key', 'text', (c) => c.notNull().unique())
      .addColumn('value', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('remark', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
  },
};
