import { newId, type ActionSummaryRow } from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** Usage statistics of the console: one row per action a user took (visit, click …). */
export async function insertAction(db: Kysely<DB>, userId: string, type: string, paramsJson: string): Promise<void> {
  await db
    .insertInto('actions')
    .values({ id: newId(), user_id: userId, type, params: paramsJson, create_ts: Date.now() })
    .execute();
}

/** Per action type since `since`: how often, by how many users. */
export function summarizeActions(db: Kysely<DB>, since: number): Promise<ActionSummaryRow[]> {
  return db
    .selectFrom('actions')
    .select([
      'type',
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.count<number>('user_id').distinct().as('users'),
    ])
    .where('create_ts', '>=', since)
    .groupBy('type')
    .orderBy('type')
    .execute();
}
