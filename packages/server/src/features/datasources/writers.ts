import type { DataSourceTls } from '@crawldeck/shared';
import type { CoreContext } from '../../context.ts';
import { decryptSecret } from '../../crypto/secrets.ts';
import { notFound } from '../../http/errors.ts';
import type { ColumnKind } from './columns.ts';
import type { ConnectionSettings } from './connection.ts';
import { getDataSource, type DataSourceRow } from './datasources.store.ts';
import { MysqlWriter } from './mysql-target.store.ts';
import { PostgresWriter } from './pg-target.store.ts';
import type { TargetWriter } from './target.ts';

/** A writer for unsaved settings (Test connection) or a stored data source; the caller closes it. */
export function openWriter(s: ConnectionSettings): TargetWriter {
  return s.type === 'postgres' ? new PostgresWriter(s) : new MysqlWriter(s);
}

export function settingsOf(ctx: CoreContext, row: DataSourceRow): ConnectionSettings {
  return {
    type: row.type,
    host: row.host,
    port: row.port,
    database: row.database,
    username: row.username,
    password: row.password_enc ? decryptSecret(ctx.config.dataDir, row.password_enc) : '',
    schema: row.schema,
    tls: JSON.parse(row.tls) as DataSourceTls,
  };
}

interface Open {
  writer: TargetWriter;
  row: DataSourceRow;
  /** Column kinds per table, as last read or changed by this master. */
  columns: Map<string, Map<string, ColumnKind>>;
}

/**
 * One connection pool per data source and master, opened on first use and replaced when the data source is
 * edited (its update time changes), so a changed password or host takes effect on the next batch.
 */
export class WriterCache {
  private readonly open = new Map<string, Open>();

  constructor(private readonly ctx: CoreContext) {}

  async get(id: string): Promise<Open> {
    const row = await getDataSource(this.ctx.store.db, id);
    if (!row) {
      await this.drop(id);
      throw notFound('data source');
    }
    const found = this.open.get(id);
    if (found && found.row.update_ts === row.update_ts) return found;
    if (found) await this.drop(id);
    const fresh: Open = { writer: openWriter(settingsOf(this.ctx, row)), row, columns: new Map() };
    this.open.set(id, fresh);
    return fresh;
  }

  async drop(id: string): Promise<void> {
    const found = this.open.get(id);
    this.open.delete(id);
    await found?.writer.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.drop(id)));
  }
}

const caches = new WeakMap<CoreContext, WriterCache>();

/** The master's writer cache (closed with the app). */
export function writerCache(ctx: CoreContext): WriterCache {
  let c = caches.get(ctx);
  if (!c) {
    const cache = new WriterCache(ctx);
    caches.set(ctx, cache);
    ctx.onClose(() => cache.closeAll());
    c = cache;
  }
  return c;
}
