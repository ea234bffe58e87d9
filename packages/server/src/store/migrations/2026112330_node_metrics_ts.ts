import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * Indexes that keep fleet-wide work flat. Metrics history retention deletes by time across all nodes: an index on
 * `ts` turns each of its bounded chunks into a range walk instead of a scan of the whole table. Dispatch reads the
 * tasks waiting for a node: a partial index holds only those (pending, not claimed), by node and age, so finding
 * them does not walk the finished ones.
 */
export const m2026112330_node_metrics_ts: EngineMigration = {
  async up(db) {
    await db.schema.createIndex('node_metrics_ts_idx').on('node_metrics').column('ts').execute();
    await db.schema
      .createIndex('tasks_waiting_idx')
      .on('tasks')
      .columns(['node_id', 'create_ts', 'id'])
      .where(sql.ref('status'), '=', 'pending')
      .where(sql.ref('assign_ts'), 'is', null)
      .execute();
  },
};
