import type { EngineMigration } from '../migrate.ts';

/**
 * Why a finished task deserves a look although it finished (it printed error lines, or stored no result where the
 * spider's earlier runs stored many): JSON `{ reasons, usual_results }`, empty when nothing is suspicious.
 */
export const m2026112231_task_suspicious: EngineMigration = {
  async up(db) {
    await db.schema
      .alterTable('tasks')
      .addColumn('suspicious', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  },
};
