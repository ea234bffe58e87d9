/**
 * Which real table a data-source entry and table name reach. Two entries may name one database differently
 * (`127.0.0.1` and `localhost`, upper and lower case, an IPv6 spelling), so whatever is owned or compared is keyed
 * by this identity, never by the entry: the host as a URL would canonicalise it (every loopback address becomes
 * `localhost`), the port, the database, the schema (PostgreSQL's default `public` spelled out) and the table.
 */
import type { DataSourceType } from './datasources.ts';

export interface DatabaseAddress {
  type: DataSourceType;
  host: string;
  port: number;
  database: string;
  schema: string;
}

const LOOPBACK = 'localhost';
/** How a table's identity starts (claims of tables share the owners' list with results collections). */
export const TABLE_CLAIM_PREFIX = 'datasource:';

function isLoopback(host: string): boolean {
  if (host === LOOPBACK || host.endsWith('.localhost') || host === '0.0.0.0' || host === '[::]') return true;
  if (host === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)) return true;
  return /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The host as one spelling per machine: lower case, no trailing dot, IP forms canonical, loopback as `localhost`. */
export function normalHost(host: string): string {
  let h = host.trim().toLowerCase().replace(/\.$/, '');
  if (!h) return LOOPBACK;
  if (h.includes(':') && !h.startsWith('[')) h = `[${h}]`;
  try {
    h = new URL(`http://${h}/`).hostname;
  } catch {
    // Not a valid host name: compared as written (the connection would fail anyway).
  }
  return isLoopback(h) ? LOOPBACK : h;
}

/** The schema a table of the address lands in (PostgreSQL's default spelled out; MySQL has none). */
export function schemaOf(a: DatabaseAddress): string {
  return a.type === 'postgres' ? a.schema || 'public' : '';
}

/** The key of a table in a database, the same for every data-source entry that reaches it. */
export function tableIdentity(a: DatabaseAddress, table: string): string {
  return `${TABLE_CLAIM_PREFIX}${a.type}://${normalHost(a.host)}:${a.port}/${a.database}/${schemaOf(a)}/${table}`;
}

/** Whether two addresses reach the same server (host and port), whatever the spelling of the host. */
export function sameServer(a: { host: string; port: number }, b: { host: string; port: number }): boolean {
  return a.port === b.port && normalHost(a.host) === normalHost(b.host);
}
