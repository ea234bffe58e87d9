import type { EngineMigration } from '../migrate.ts';

/** Users, their tokens (sessions and API tokens), system settings and the usage-statistics collector. */
export const m2026112201_session: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('username', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('expire_ts', t.ts)
      .addColumn('last_used_ts', t.ts)
      .execute();
    await db.schema.createIndex('tokens_user_idx').on('tokens').columns(['user_id', 'kind']).execute();
    await db.schema
      .createTable('settings')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('actions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('actions_type_ts_idx').on('actions').columns(['type', 'create_ts']).execute();
  },
};
