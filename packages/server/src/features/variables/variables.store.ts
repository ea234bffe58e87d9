import type { Kysely, Selectable } from 'kysely';
import type { Variable } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { iso } from '../../http/envelope.ts';

export type VariableRow = Selectable<DB['variables']>;

export function presentVariable(row: VariableRow): Variable {
  return {
    _id: row.id,
    key: row.key,
    value: row.value,
    remark: row.remark,
    create_ts: iso(row.create_ts),
    update_ts: iso(row.update_ts),
  };
}

export function listVariables(db: Kysely<DB>): Promise<VariableRow[]> {
  return db.selectFrom('variables').selectAll().orderBy('key').execute();
}

/** Global variables as the environment of a spider process (the spider's own envs are applied on top). */
export async function listVariablesAsEnv(db: Kysely<DB>): Promise<Record<string, string>> {
  const rows = await db.selectFrom('variables').select(['key', 'value']).execute();
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export function findVariableByKey(db: Kysely<DB>, key: string): Promise<Pick<VariableRow, 'id'> | undefined> {
  return db.selectFrom('variables').select('id').where('key', '=', key).executeTakeFirst();
}

export function findVariable(db: Kysely<DB>, id: string): Promise<VariableRow | undefined> {
  return db.selectFrom('variables').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes key, value and (when given) remark; false when there is no such variable. */
export async function updateVariable(
  db: Kysely<DB>,
  id: string,
  patch: Pick<VariableRow, 'key' | 'value'> & { remark?: string },
): Promise<boolean> {
  const res = await db
    .updateTable('variables')
    .set({ ...patch, update_ts: Date.now() })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function insertVariable(db: Kysely<DB>, row: VariableRow): Promise<void> {
  await db.insertInto('variables').values(row).execute();
}

export async function deleteVariable(db: Kysely<DB>, id: string): Promise<boolean> {
  const res = await db.deleteFrom('variables').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
