import { sql, type Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** Sends a notice on a PostgreSQL channel; every master listening on it receives the payload. */
export async function notifyChannel(db: Kysely<DB>, channel: string, payload: string): Promise<void> {
  await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db);
}
