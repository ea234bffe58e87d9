import { createHash } from 'node:crypto';
import type { ShipBatch } from '@crawldeck/shared';
import { TABLE_NAME_PATTERN, tableIdentity } from '@crawldeck/shared';
import type { AppContext, CoreContext } from '../../context.ts';
import { HttpError, forbidden } from '../../http/errors.ts';
import { spiderOwnerMayWrite } from '../../policies/index.ts';
import type { DedupConfig } from '../tasks/tasks.store.ts';
import { driverMessage } from './datasources.service.ts';
import { asText, columnName, fits, kindOf, widen, withoutNul, type ColumnKind } from './columns.ts';
import {
  advanceTaskItems,
  getTaskTarget,
  insertTaskTarget,
  setTaskTargetError,
  taskOffset,
  taskSpiderTarget,
  type TaskTargetRow,
} from './datasources.store.ts';
import type { DedupMode, TargetRow, TargetWriter } from './target.ts';
import { writerCache } from './writers.ts';
import { storeBatch } from './target.store.ts';

/** Table of a spider's results when none is set: its results collection, made a valid table name. */
export function defaultTable(col: string, spiderName: string): string {
  const valid = new RegExp(TABLE_NAME_PATTERN);
  if (valid.test(col)) return col;
  const cleaned = (col || `results_${spiderName}`).replace(/[^A-Za-z0-9_]/g, '_').slice(0, 63);
  return valid.test(cleaned) ? cleaned : `results_${cleaned}`.slice(0, 63);
}

/**
 * Records where a task's items go, from its spider's settings of this moment: called when the task is created,
 * and again (a no-op then) on its first batch. Undefined when the task is gone.
 */
export async function recordTaskTarget(ctx: CoreContext, taskId: string): Promise<TaskTargetRow | undefined> {
  const db = ctx.store.db;
  const known = builtinTasks.has(taskId) ? builtinTarget(taskId) : undefined;
  if (known) return known;
  const found = await getTaskTarget(db, taskId);
  if (found) return remember(found);
  const s = await taskSpiderTarget(db, taskId);
  if (!s) return undefined;
  // A task that stored items before its target was recorded (created by an older version) wrote into the built-in store.
  const dataSource = s.item_offset > 0 ? '' : (s.data_source_id ?? '');
  await insertTaskTarget(db, taskId, dataSource, dataSource ? s.table_name || defaultTable(s.col, s.name) : '');
  const recorded = await getTaskTarget(db, taskId);
  return recorded && remember(recorded);
}

// Tasks writing into the built-in store, so their item batches skip the look-up (a record never changes).
const builtinTasks = new Set<string>();
const BUILTIN_TASKS_KEPT = 10_000;
const builtinTarget = (taskId: string): TaskTargetRow => ({
  task_id: taskId,
  data_source_id: '',
  table_name: '',
  error: '',
  error_ts: null,
  refusals: 0,
});

function remember(row: TaskTargetRow): TaskTargetRow {
  if (row.data_source_id) return row;
  if (builtinTasks.size >= BUILTIN_TASKS_KEPT) builtinTasks.clear();
  builtinTasks.add(row.task_id);
  return row;
}

/** Lines → rows: invalid lines are skipped (they still count for the offset), duplicates in the batch folded. */
function toRows(
  taskId: string,
  from: number,
  lines: string[],
  dedup: DedupConfig,
  nameOf: (field: string) => string,
): TargetRow[] {
  const rows: TargetRow[] = [];
  const byKey = new Map<string, number>();
  lines.forEach((line, i) => {
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      return;
    }
    if (!item || typeof item !== 'object' || Array.isArray(item)) return;
    const obj = withoutNul(item) as Record<string, unknown>;
    delete obj._id;
    delete obj.task_id;
    const value = dedup.isDedup && dedup.field ? obj[dedup.field] : undefined;
    const key =
      value === undefined || value === null ? null : createHash('sha256').update(JSON.stringify(value)).digest('hex');
    const fields = new Map<string, unknown>();
    for (const [k, v] of Object.entries(obj)) if (v !== null && v !== undefined) fields.set(nameOf(k), v);
    const row: TargetRow = { task_id: taskId, _seq: from + i, _dedup: key, fields };
    if (key !== null) {
      const seen = byKey.get(key);
      if (seen !== undefined) {
        if (dedup.method === 'overwrite') rows[seen] = row;
        return;
      }
      byKey.set(key, rows.length);
    }
    rows.push(row);
  });
  return rows;
}

/** Column changes a batch needs: new columns with their kinds, existing ones to widen. */
function planColumns(have: Map<string, ColumnKind>, rows: TargetRow[]) {
  const added = new Map<string, ColumnKind>();
  const widened = new Map<string, ColumnKind>();
  for (const r of rows) {
    for (const [name, v] of r.fields) {
      const current = widened.get(name) ?? added.get(name) ?? have.get(name);
      if (current === undefined) added.set(name, kindOf(v)!);
      else if (!fits(current, v)) (added.has(name) ? added : widened).set(name, widen(current, v));
    }
  }
  return { added, widened };
}

/** A results table Crawldeck will not write into: the task fails with this reason after a few refused batches. */
export class TargetRefused extends Error {}

/** The table's columns once it is known to be ours (an earlier Crawldeck's table is marked now); undefined: none. */
async function ownColumns(writer: TargetWriter, table: string): Promise<Map<string, ColumnKind> | undefined> {
  const mark = await writer.ownership(table);
  if (mark === undefined) return undefined;
  if (mark === 'foreign')
    throw new TargetRefused(
      `the table "${table}" exists and was not created by Crawldeck; Crawldeck writes only into tables it ` +
        'created: choose another table name',
    );
  if (mark === 'earlier') await writer.adopt(table);
  return writer.columns(table);
}

/** Makes the table hold every field of the rows (creating, adding, widening); returns its columns. */
async function fitTable(
  writer: TargetWriter,
  cache: Map<string, Map<string, ColumnKind>>,
  table: string,
  rows: TargetRow[],
) {
  for (let attempt = 0; ; attempt++) {
    const known = attempt === 0 ? cache.get(table) : undefined;
    const have = known ?? (await ownColumns(writer, table));
    const plan = planColumns(have ?? new Map(), rows);
    if (have) cache.set(table, have);
    if (have && !plan.added.size && !plan.widened.size) return have;
    if (attempt >= 3) throw new Error(`the columns of table ${table} keep changing`);
    cache.delete(table);
    // Created marked; when someone else's table appeared meanwhile, the next round finds it unmarked and refuses.
    if (!have) await writer.createTable(table, plan.added);
    else {
      for (const [name, kind] of plan.added) await writer.addColumn(table, name, kind);
      for (const [name, kind] of plan.widened) await writer.widenColumn(table, name, kind);
    }
  }
}

/** MySQL compares column names without case: a field takes the existing column of the same name in any case. */
function namer(caseless: boolean, columns: Map<string, ColumnKind> | undefined): (field: string) => string {
  const seen = new Map<string, string>();
  for (const c of columns?.keys() ?? []) seen.set(caseless ? c.toLowerCase() : c, c);
  return (field) => {
    const name = columnName(field);
    const key = caseless ? name.toLowerCase() : name;
    const found = seen.get(key);
    if (found) return found;
    seen.set(key, name);
    return name;
  };
}

// Tasks whose spider owner was found to own the table they write (task id → table identity), so later batches skip it.
const ownedBy = new Map<string, string>();

/**
 * Checked again on a task's first batch (and after its data source changed): the table, as the real database it is
 * in, belongs to the spider's owner. A data source edited to reach another user's table refuses the task here.
 */
async function assertOwnerMayWrite(ctx: CoreContext, taskId: string, ownerId: string | null, identity: string) {
  if (ownedBy.get(taskId) === identity) return;
  if (!(await spiderOwnerMayWrite(ctx.store.db, ownerId, identity)))
    throw forbidden(
      "forbidden: this table of the database belongs to another user's spider; choose another table name",
    );
  if (ownedBy.size >= BUILTIN_TASKS_KEPT) ownedBy.clear();
  ownedBy.set(taskId, identity);
}

/**
 * Writes items `from…` of a task into its data source exactly once, or answers undefined when the task writes into
 * the built-in store. The rows carry (task id, sequence number) under a unique key: a batch sent again after a lost
 * answer finds its rows there and stores nothing twice. The node's offset advances only after the target committed.
 * A target that fails answers 503 (the node keeps the items and sends them again) and the task shows the error.
 */
export async function ingestIntoDataSource(
  ctx: AppContext,
  taskId: string,
  batch: ShipBatch,
  dedup: DedupConfig,
): Promise<{ acked: number; stored: number } | undefined> {
  const db = ctx.store.db;
  const target = await recordTaskTarget(ctx, taskId);
  if (!target) throw new HttpError(410, 'task gone');
  if (!target.data_source_id) return undefined;
  const task = await taskOffset(db, taskId);
  if (!task) throw new HttpError(410, 'task gone');
  const offset = task.item_offset;
  if (batch.from > offset) return { acked: offset, stored: 0 };
  const fresh = batch.lines.slice(offset - batch.from);
  if (!fresh.length) return { acked: offset, stored: 0 };
  const end = offset + fresh.length;
  const cache = writerCache(ctx);
  let stored: number;
  let name = target.data_source_id;
  const deadline = new WriteDeadline(ctx.config.dataSourceWriteMs);
  try {
    const open = await deadline.race(cache.get(target.data_source_id));
    name = open.row.name;
    const table = target.table_name;
    await assertOwnerMayWrite(ctx, taskId, task.owner_id, tableIdentity(open.row, table));
    const caseless = open.row.type === 'mysql';
    stored = await deadline.race(
      (async () => {
        const rows = toRows(
          taskId,
          offset,
          fresh,
          dedup,
          namer(caseless, open.columns.get(table) ?? (await ownColumns(open.writer, table))),
        );
        const columns = await fitTable(open.writer, open.columns, table, rows);
        for (const r of rows) for (const [k, v] of r.fields) if (columns.get(k) === 'text') r.fields.set(k, asText(v));
        const mode: DedupMode = dedup.isDedup && dedup.field ? dedup.method : 'none';
        return storeBatch(open.writer, { table, columns, rows, mode }, { taskId, from: offset, to: end });
      })(),
    );
  } catch (err) {
    return failedWrite(ctx, taskId, target, `data source "${name}": ${driverMessage(err)}`, err);
  } finally {
    deadline.clear();
  }
  await advanceTaskItems(db, taskId, offset, end, stored);
  ctx.events.emit('datasource.written', { taskId, dataSourceId: target.data_source_id });
  if (target.error) await setTaskTargetError(db, taskId, '', target.error, false);
  return { acked: end, stored };
}

/**
 * A batch's write into its data source failed or took too long: the task shows why, and the node is answered 503
 * (it keeps the items and sends them again), or 410 when sending again cannot help: the table refuses the task, or
 * the task was cancelled, which then gives up its items not stored yet (its log is still stored whole).
 */
async function failedWrite(
  ctx: AppContext,
  taskId: string,
  target: TaskTargetRow,
  message: string,
  err: unknown,
): Promise<never> {
  const db = ctx.store.db;
  ctx.log.warn({ err, taskId }, 'results data source write failed; the node keeps the items and sends them again');
  // A fresh pool on the next batch: no broken connection of a restarted server (or one that stopped answering,
  // whose closing would wait as long) is used again.
  void writerCache(ctx).drop(target.data_source_id);
  const refused = isRefusal(err);
  ctx.events.emit('datasource.failed', { taskId, dataSourceId: target.data_source_id, error: message });
  const now = await taskOffset(db, taskId);
  if (now?.status === 'cancelled') {
    const why = `${message}; the task was cancelled, so its items not stored yet are given up`;
    await setTaskTargetError(db, taskId, why, target.error, refused);
    // The node stops sending items at this answer but ships the rest of the task's log, then reports its end,
    // which frees its slot.
    throw new HttpError(410, why);
  }
  const refusals = await setTaskTargetError(db, taskId, message, target.error, refused);
  if (refused && refusals >= MAX_REFUSALS) {
    // Asking again cannot help: the task ends with the reason, and the node stops shipping its items.
    await ctx.execution.failRunning(taskId, message);
    throw new HttpError(410, message);
  }
  throw new HttpError(503, message);
}

/** A write into a results database that does not answer within the time allowed counts as failed. */
class WriteDeadline {
  private timer: NodeJS.Timeout | undefined;
  private readonly expired: Promise<never>;

  constructor(readonly ms: number) {
    this.expired = new Promise<never>((_, reject) => {
      this.timer = setTimeout(
        () =>
          reject(new Error(`the database did not answer within ${Math.round(ms / 1000)} s (stalled or unreachable)`)),
        ms,
      );
    });
    this.expired.catch(() => undefined);
  }

  race<T>(work: Promise<T>): Promise<T> {
    // The write may still end later: its rows carry their sequence numbers, so sending them again stores none twice.
    work.catch(() => undefined);
    return Promise.race([work, this.expired]);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * Batches a results table may refuse in a row before its task fails. A refusal (a table that is not ours, one owned
 * by another user, no privilege) does not go away by itself; a few tries cover an administrator fixing it at once.
 * A target that is down is not a refusal: its items wait on the node as long as it takes.
 */
export const MAX_REFUSALS = 3;

/** PostgreSQL and MySQL/MariaDB codes of a statement the database refuses for lack of privilege. */
const PRIVILEGE_CODES = new Set(['42501', 'ER_TABLEACCESS_DENIED_ERROR', 'ER_COLUMNACCESS_DENIED_ERROR']);

function isRefusal(err: unknown): boolean {
  if (err instanceof TargetRefused) return true;
  if (err instanceof HttpError) return err.statusCode === 403;
  return PRIVILEGE_CODES.has(String((err as { code?: unknown }).code));
}
