import type { EngineMigration } from '../migrate.ts';

/**
 * Each node's own key for the node API: only its hash is kept. A node that joins with the shared key is given one,
 * and from then on acts with it alone; a revoked key stays as a row (revoke_ts set) so that the node cannot simply
 * join again with the shared key.
 */
export const m2026121000_node_credentials: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('node_credentials')
      .addColumn('node_id', 'text', (c) => c.primaryKey())
      .addColumn('key_hash', 'text', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('last_used_ts', t.ts)
      .addColumn('revoke_ts', t.ts)
      .execute();
    await db.schema
      .createIndex('node_credentials_key_idx')
      .on('node_credentials')
      .column('key_hash')
      .unique()
      .execute();
  },
};
