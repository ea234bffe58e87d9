import type { Kysely, Selectable } from 'kysely';
import type { Variable } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { iso } from '../../http/envelope.ts';

export type VariableRow = Selectable<DB['variables']>;

export function presentVariable(row: VariableRow): Variable {
  return { _id: row.id, key: row.key, value: row.value, remark: row.remark, create_ts: iso(row.create_ts), update_ts: iso(row.update_ts) };
}

export function listVariables(db: Kysely<DB>): Promise<VariableRow[]> {
  return db.selectFrom('variables').selectAll().orderBy('key').execute();
}

/** Global variables as the environment of a spider process (the spider's own envs are applied on top). */
export async function listVariablesAsEnv(db: Kysely<DB>): Promise<Record<string, string>> {
  const rows = await db.selectFrom('variables').select(['key', 'value']).execute();
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}
