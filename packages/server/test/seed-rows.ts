import { sql, type Kysely } from 'kysely';
import { newId } from '@crawldeck/shared';
import { ENGINE } from './harness.ts';

/**
 * Test helper for tables other features own (tasks, task_logs, nodes, deploys, spiders, projects): inserts a row
 * with the given columns and a plausible value for every other required column without a default, so our tests do
 * not depend on those features' write paths.
 */
interface Col {
  name: string;
  notnull: boolean;
  dflt: unknown;
  type: string;
}

async function columns(db: Kysely<any>, table: string): Promise<Col[]> {
  if (ENGINE === 'sqlite') {
    const { rows } = await sql<{
      name: string;
      notnull: number;
      dflt_value: unknown;
      type: string;
    }>`SELECT name, "notnull", dflt_value, type FROM pragma_table_info(${table})`.execute(db);
    return rows.map((r) => ({ name: r.name, notnull: !!r.notnull, dflt: r.dflt_value, type: r.type.toLowerCase() }));
  }
  const { rows } = await sql<{ name: string; nullable: string; dflt: unknown; type: string }>`
    SELECT column_name AS name, is_nullable AS nullable, column_default AS dflt, data_type AS type
    FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`.execute(db);
  return rows.map((r) => ({ name: r.name, notnull: r.nullable === 'NO', dflt: r.dflt, type: r.type.toLowerCase() }));
}

const cache = new Map<string, Col[]>();

export async function tableExists(db: Kysely<any>, table: string): Promise<boolean> {
  return (await columns(db, table)).length > 0;
}

export async function insertRow(db: Kysely<any>, table: string, given: Record<string, unknown>): Promise<void> {
  let cols = cache.get(table);
  if (!cols) cache.set(table, (cols = await columns(db, table)));
  const row: Record<string, unknown> = { ...given };
  for (const c of cols) {
    if (c.name in row || !c.notnull || c.dflt != null) continue;
    if (c.name === 'id') row.id = newId();
    else if (/int|real|numeric|double|float/.test(c.type)) row[c.name] = c.name.endsWith('_ts') ? Date.now() : 0;
    else row[c.name] = c.name === 'name' ? `t-${newId().slice(-8)}` : '';
  }
  await sql`INSERT INTO ${sql.table(table)} (${sql.join(Object.keys(row).map((k) => sql.ref(k)))}) VALUES (${sql.join(Object.values(row))})`.execute(
    db,
  );
}

/** Inserts many rows in one statement per chunk (same columns for all). */
export async function insertRows(
  db: Kysely<any>,
  table: string,
  rows: Record<string, unknown>[],
  chunk = 500,
): Promise<void> {
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk);
    const keys = Object.keys(part[0]);
    await sql`INSERT INTO ${sql.table(table)} (${sql.join(keys.map((k) => sql.ref(k)))}) VALUES ${sql.join(part.map((r) => sql`(${sql.join(keys.map((k) => r[k]))})`))}`.execute(
      db,
    );
  }
}
