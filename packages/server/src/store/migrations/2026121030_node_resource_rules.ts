import type { EngineMigration } from '../migrate.ts';

/**
 * Node resource rules (CPU, memory or disk above a share for a while): a rule's `for_seconds`, how long a reading
 * must stay above the threshold before the rule fires (0 for every other rule), and per rule and node the time the
 * readings went above it and whether that episode has fired. Kept in the store, so a master that restarts, or
 * another master the node moves to, goes on from the same time and does not fire the episode again.
 */
export const m2026121030_node_resource_rules: EngineMigration = {
  async up(db, t) {
    await db.schema
      .alterTable('notify_rules')
      .addColumn('for_seconds', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('notify_node_states')
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('node_id', 'text', (c) => c.notNull())
      .addColumn('above_since', t.ts, (c) => c.notNull())
      .addColumn('fired', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('notify_node_states_pk', ['rule_id', 'node_id'])
      .execute();
  },
};
