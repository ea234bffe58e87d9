import type { EngineMigration } from '../migrate.ts';

/**
 * Metrics history retention deletes by time across all nodes: an index on `ts` turns each of its bounded chunks
 * into a range walk instead of a scan of the whole table.
 */
export const m2026112330_node_metrics_ts: EngineMigration = {
  async up(db) {
    await db.schema.createIndex('node_metrics_ts_idx').on('node_metrics').column('ts').execute();
  },
};
