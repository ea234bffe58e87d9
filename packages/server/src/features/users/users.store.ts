import { DEFAULT_MAX_ERROR_LOG, newId, type Role, type UserInfo } from '@crawldeck/shared';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { pageWithTotal } from '../../store/query-helpers.ts';
import type { DB } from '../../store/schema.ts';
import { iso } from '../../http/envelope.ts';

export type UserRow = Selectable<DB['users']>;

export function findUserByUsername(db: Kysely<DB>, username: string) {
  return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
}

export function findUserById(db: Kysely<DB>, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(
  db: Kysely<DB>,
  user: { username: string; passwordHash: string; role: Role; email?: string },
): Promise<UserRow> {
  const now = Date.now();
  const row: UserRow = {
    id: newId(now),
    username: user.username,
    password_hash: user.passwordHash,
    role: user.role,
    email: user.email ?? '',
    settings: '{}',
    create_ts: now,
    update_ts: now,
  };
  await db.insertInto('users').values(row).execute();
  return row;
}

/** The user as the API shows it: never the password hash. */
export function presentUser(row: UserRow): UserInfo {
  const setting = JSON.parse(row.settings || '{}') as { max_error_log?: number };
  return {
    _id: row.id,
    username: row.username,
    role: row.role,
    email: row.email,
    setting: { ...setting, max_error_log: setting.max_error_log ?? DEFAULT_MAX_ERROR_LOG },
    create_ts: iso(row.create_ts),
  };
}

/** Unique-constraint violations look different on the two engines. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(e?.message ?? '')
  );
}

/** One page of the users, oldest first, and how many there are. */
export function listUsersPage(db: Kysely<DB>, page: { limit: number; offset: number }) {
  return pageWithTotal(db.selectFrom('users').selectAll().orderBy('create_ts', 'asc').orderBy('id', 'asc'), page);
}

/**
 * Number of admins, read inside the caller's transaction. On PostgreSQL the admin rows are locked (FOR UPDATE) so
 * two concurrent demotions/deletions cannot both see "2 admins" and leave none; SQLite serialises writers anyway.
 */
export async function countAdminsForUpdate(trx: Transaction<DB>, engine: 'sqlite' | 'postgres'): Promise<number> {
  let q = trx.selectFrom('users').select('id').where('role', '=', 'admin');
  if (engine === 'postgres') q = q.forUpdate();
  return (await q.execute()).length;
}

export type UserPatch = Partial<Pick<UserRow, 'role' | 'email' | 'password_hash' | 'settings'>> & { update_ts: number };

export async function updateUser(db: Kysely<DB>, id: string, patch: UserPatch): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}

/** Deletes the user row (its tokens go first, see deleteUserTokens). */
export async function deleteUserRow(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}
