import type { EngineMigration } from '../migrate.ts';

/**
 * Tables of the console's smaller admin areas: sites (a ranked list of web sites by domain) with the URLs collected
 * from them, and the feedback users send from the console. Kept in one migration so these areas own one number.
 */
export const m2026112204_sites: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('sites')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('domain', 'text', (c) => c.notNull().unique())
      .addColumn('main_category', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('category', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('rank', 'integer')
      .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sites_category_idx').on('sites').columns(['main_category', 'category']).execute();
    await db.schema.createIndex('sites_rank_idx').on('sites').columns(['rank', 'domain']).execute();
    await db.schema
      .createTable('collected_urls')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('region_code', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('collected_urls_region_idx')
      .on('collected_urls')
      .columns(['region_code', 'create_ts'])
      .execute();
    await db.schema.createIndex('collected_urls_ts_idx').on('collected_urls').column('create_ts').execute();
    await db.schema
      .createTable('feedback')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text')
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('chat_account', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('feedback_ts_idx').on('feedback').column('create_ts').execute();
  },
};
