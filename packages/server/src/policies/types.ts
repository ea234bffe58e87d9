import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Role } from '@crawldeck/shared';
import type { DB } from '../store/schema.ts';

/** Whoever asks: a signed-in user (session or API token). Only the id and role matter to a policy. */
export interface Actor {
  id: string;
  role: Role;
}

/** What the caller wants to do with a resource. `run` starts tasks (of a spider, a schedule). */
export type Access = 'read' | 'change' | 'run';

/** A list-query condition on table T: the same rule as the row check, evaluated by the database. */
export type Filter<T extends keyof DB> = (eb: ExpressionBuilder<DB, T>) => Expression<SqlBool>;

export const isAdmin = (actor: Actor): boolean => actor.role === 'admin';

export { everything, nothing } from './policies.store.ts';
