import { sql } from 'kysely';
import type { EngineMigration } from '../migrate.ts';

/**
 * Result collections are owned: the user whose spider first used a collection name owns it, and only they (or an
 * administrator) may point a spider at it, so nobody writes into, dedupes against or overwrites another user's
 * results. Existing collections go to the owner of the oldest spider that uses them.
 */
export const m2026112208_collections: EngineMigration = {
  async up(db, t) {
    await db.schema
      .createTable('result_collections')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('create_ts', t.ts, (c) => c.notNull())
      .execute();
    await sql`INSERT INTO result_collections (name, owner_id, create_ts)
      SELECT s.col, s.owner_id, s.create_ts FROM spiders s
      WHERE s.col <> '' AND NOT EXISTS (
        SELECT 1 FROM spiders o WHERE o.col = s.col AND (o.create_ts < s.create_ts OR (o.create_ts = s.create_ts AND o.id < s.id))
      )`.execute(db);
  },
};
