import type { DataSourceTls, DataSourceType } from '@crawldeck/shared';

/** What a writer needs to connect: the stored settings with the password decrypted. */
export interface ConnectionSettings {
  type: DataSourceType;
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
  schema: string;
  tls: DataSourceTls;
  /**
   * The name the server's certificate is checked against when `host` is an address the master already resolved
   * and checked (a connection test pins it, so a changing DNS answer cannot move it elsewhere).
   */
  serverName?: string;
}

/** A target that does not answer within this long counts as down: the node keeps its items and sends them again. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** Longest wait for a lock in the target (another writer's transaction, a schema change). */
export const LOCK_TIMEOUT_MS = 10_000;
/** Connections per data source and master: ingest batches of one task are sequential, reads are short. */
export const POOL_SIZE = 5;

/** The drivers' TLS options: off, or on with (or without) checking the server's certificate. */
export function tlsOptions(
  s: ConnectionSettings,
): false | { rejectUnauthorized: boolean; ca?: string; servername?: string } {
  if (!s.tls.enabled) return false;
  return {
    rejectUnauthorized: s.tls.verify,
    ...(s.tls.ca ? { ca: s.tls.ca } : {}),
    ...(s.serverName ? { servername: s.serverName } : {}),
  };
}
