import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/** Nodes and their metrics, tasks, numbered task log lines, result items and deploy records. */
export const m2026112203_tasks: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('nodes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('max_runners', 'integer', (c) => c.notNull().defaultTo(8))
      .addColumn('running', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ip', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('system_info', 'text', (c) => c.notNull().defaultTo('null'))
      .addColumn('metrics', 'text', (c) => c.notNull().defaultTo('null'))
      .addColumn('last_seen_ts', t.ts)
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('update_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('node_metrics')
      .addColumn('node_id', 'text', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
      .addColumn('ts', t.ts, (c) => c.notNull())
      .addColumn('cpu', 'real', (c) => c.notNull())
      .addColumn('mem', 'real', (c) => c.notNull())
      .addColumn('disk', 'real', (c) => c.notNull())
      .addColumn('running', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('node_metrics_pk', ['node_id', 'ts'])
      .execute();
    await db.schema
      .createTable('tasks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('spider_id', 'text', (c) => c.notNull().references('spiders.id').onDelete('cascade'))
      .addColumn('node_id', 'text', (c) => c.notNull())
      .addColumn('schedule_id', 'text')
      .addColumn('parent_id', 'text')
      .addColumn('type', 'text', (c) => c.notNull().defaultTo('spider'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('run_type', 'text', (c) => c.notNull())
      .addColumn('param', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('cmd', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('exit_code', 'integer')
      .addColumn('pid', 'integer')
      .addColumn('result_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('log_lines', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error_lines', 'integer', (c) => c.notNull().defaultTo(0))
      /** Items acknowledged so far (offset into the node's item spool), for exactly-once ingest. */
      .addColumn('item_offset', 'integer', (c) => c.notNull().defaultTo(0))
      /** Set when a node claimed the pending task; cleared if the node never got it. */
      .addColumn('assign_ts', t.ts)
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('start_ts', t.ts)
      .addColumn('finish_ts', t.ts)
      .addColumn('owner_id', 'text')
      .execute();
    await db.schema.createIndex('tasks_create_idx').on('tasks').column('create_ts desc').execute();
    await db.schema.createIndex('tasks_spider_idx').on('tasks').columns(['spider_id', 'create_ts desc']).execute();
    await db.schema.createIndex('tasks_node_idx').on('tasks').columns(['node_id', 'status']).execute();
    await db.schema.createIndex('tasks_status_idx').on('tasks').columns(['status', 'create_ts']).execute();
    await db.schema.createIndex('tasks_schedule_idx').on('tasks').columns(['schedule_id', 'create_ts desc']).execute();
    await db.schema
      .createTable('task_logs')
      .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
      .addColumn('line_no', 'integer', (c) => c.notNull())
      .addColumn('msg', 'text', (c) => c.notNull())
      .addColumn('is_error', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('task_logs_pk', ['task_id', 'line_no'])
      .execute();
    await db.schema
      .createIndex('task_logs_error_idx')
      .on('task_logs')
      .columns(['task_id', 'is_error', 'line_no'])
      .execute();
    await db.schema
      .createTable('results')
      .addColumn('id', sql.raw(t.serial), (c) => c.primaryKey())
      .addColumn('collection', 'text', (c) => c.notNull())
      .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
      .addColumn('spider_id', 'text', (c) => c.notNull())
      .addColumn('dedup_key', 'text')
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addUniqueConstraint('results_dedup_uq', ['collection', 'dedup_key'])
      .execute();
    await db.schema.createIndex('results_task_idx').on('results').columns(['task_id', 'id']).execute();
    await db.schema
      .createTable('deploys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('spider_id', 'text', (c) => c.notNull().references('spiders.id').onDelete('cascade'))
      .addColumn('node_id', 'text', (c) => c.notNull())
      .addColumn('task_id', 'text')
      .addColumn('files_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('files_changed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bytes', t.ts, (c) => c.notNull().defaultTo(0))
      .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .addColumn('finish_ts', t.ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('deploys_spider_idx').on('deploys').columns(['spider_id', 'finish_ts desc']).execute();
  },
};
