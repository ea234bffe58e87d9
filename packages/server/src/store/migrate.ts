import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Engine } from './db.ts';
import { migrations } from './migrations/index.ts';

/** Column types that differ between the two engines; migrations use these instead of raw type names. */
export interface ColumnTypes {
  engine: Engine;
  /** Epoch milliseconds. */
  ts: 'integer' | 'bigint';
  blob: 'blob' | 'bytea';
  /** Auto-incrementing integer primary key, declared with `sql.raw` in createTable(...).addColumn('id', …). */
  serial: 'integer' | 'bigserial';
}

export interface EngineMigration {
  up(db: Kysely<any>, t: ColumnTypes): Promise<void>;
}

export function columnTypes(engine: Engine): ColumnTypes {
  return engine === 'postgres'
    ? { engine, ts: 'bigint', blob: 'bytea', serial: 'bigserial' }
    : { engine, ts: 'integer', blob: 'blob', serial: 'integer' };
}

/** Runs every pending migration. Feature migrations are independent, so their order of arrival may vary. */
export async function migrateToLatest(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(migrations)) out[name] = { up: (d) => m.up(d, t) };
      return out;
    },
  };
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(
      `store migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
