import net from 'node:net';
import {
  errorText,
  newId,
  sameServer,
  type CreateDataSourceBody,
  type DataSourceInfo,
  type DataSourceTestResult,
  type DataSourceTls,
  type TestDataSourceBody,
  type UpdateDataSourceBody,
} from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { encryptSecret } from '../../crypto/secrets.ts';
import { iso } from '../../http/envelope.ts';
import { HttpError, badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Store } from '../../store/db.ts';
import { isUniqueViolation } from '../users/users.store.ts';
import {
  dataSourceNameTaken,
  deleteDataSourceUnused,
  getDataSource,
  insertDataSource,
  countAllSpiders,
  listDataSources,
  spiderCounts,
  updateDataSource,
  type DataSourceRow,
} from './datasources.store.ts';
import { openWriter, settingsOf, writerCache } from './writers.ts';
import type { ConnectionSettings } from './connection.ts';
import { outboundPolicy } from '../../outbound/policy.ts';

const NO_TLS: DataSourceTls = { enabled: false, verify: true, ca: '' };
const TEST_TIMEOUT_MS = 8_000;

/** The built-in store as the first entry of the list: always there, not editable here. */
export function builtinDataSource(store: Store, spiders: number): DataSourceInfo {
  return {
    _id: '',
    name: 'Crawldeck',
    type: 'builtin',
    host: '',
    port: 0,
    database: store.location,
    username: '',
    password_set: false,
    schema: '',
    tls: NO_TLS,
    spiders,
    create_ts: null,
    update_ts: null,
  };
}

/** A data source as the API shows it: never the password, only whether one is stored. */
export function presentDataSource(row: DataSourceRow, spiders: number): DataSourceInfo {
  return {
    _id: row.id,
    name: row.name,
    type: row.type,
    host: row.host,
    port: row.port,
    database: row.database,
    username: row.username,
    password_set: !!row.password_enc,
    schema: row.schema,
    tls: JSON.parse(row.tls) as DataSourceTls,
    spiders,
    create_ts: iso(row.create_ts),
    update_ts: iso(row.update_ts),
  };
}

export async function dataSourceList(ctx: AppContext, withBuiltin: boolean): Promise<DataSourceInfo[]> {
  const db = ctx.store.db;
  const [rows, counts, spiderTotal] = await Promise.all([listDataSources(db), spiderCounts(db), countAllSpiders(db)]);
  const elsewhere = [...counts.values()].reduce((a, b) => a + b, 0);
  const list = rows.map((r) => presentDataSource(r, counts.get(r.id) ?? 0));
  return withBuiltin ? [builtinDataSource(ctx.store, spiderTotal - elsewhere), ...list] : list;
}

export async function dataSourceById(ctx: AppContext, id: string): Promise<DataSourceRow> {
  const row = await getDataSource(ctx.store.db, id);
  if (!row) throw notFound('data source');
  return row;
}

async function assertNameFree(ctx: AppContext, name: string, exceptId = ''): Promise<string> {
  const trimmed = name.trim();
  if (!trimmed) throw badRequest('name is required');
  if (await dataSourceNameTaken(ctx.store.db, trimmed, exceptId))
    throw conflict(`a data source named "${trimmed}" already exists`);
  return trimmed;
}

export async function createDataSource(ctx: AppContext, body: CreateDataSourceBody): Promise<DataSourceInfo> {
  const now = Date.now();
  const row: DataSourceRow = {
    id: newId(now),
    name: await assertNameFree(ctx, body.name),
    type: body.type,
    host: body.host.trim(),
    port: body.port,
    database: body.database,
    username: body.username ?? '',
    password_enc: body.password ? encryptSecret(ctx.config.dataDir, body.password) : '',
    schema: body.type === 'postgres' ? (body.schema ?? '') : '',
    tls: JSON.stringify(body.tls ?? NO_TLS),
    create_ts: now,
    update_ts: now,
  };
  try {
    await insertDataSource(ctx.store.db, row);
  } catch (err) {
    // Two requests with the same name at once: the unique name decides.
    if (isUniqueViolation(err)) throw conflict(`a data source named "${row.name}" already exists`);
    throw err;
  }
  return presentDataSource(row, 0);
}

export async function changeDataSource(
  ctx: AppContext,
  id: string,
  body: UpdateDataSourceBody,
): Promise<DataSourceInfo> {
  const row = await dataSourceById(ctx, id);
  const patch: Partial<DataSourceRow> = { update_ts: Math.max(Date.now(), row.update_ts + 1) };
  if (body.name !== undefined) patch.name = await assertNameFree(ctx, body.name, id);
  if (body.type !== undefined) patch.type = body.type;
  if (body.host !== undefined) patch.host = body.host.trim();
  if (body.port !== undefined) patch.port = body.port;
  if (body.database !== undefined) patch.database = body.database;
  if (body.username !== undefined) patch.username = body.username;
  // Write-only: a value sets it, null clears it, '' (a form that never saw it) keeps it.
  if (body.password === null) patch.password_enc = '';
  else if (body.password) patch.password_enc = encryptSecret(ctx.config.dataDir, body.password);
  if (body.schema !== undefined) patch.schema = body.schema;
  if (body.tls !== undefined) patch.tls = JSON.stringify(body.tls);
  try {
    await updateDataSource(ctx.store.db, id, patch);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`a data source named "${patch.name}" already exists`);
    throw err;
  }
  await writerCache(ctx).drop(id);
  const counts = await spiderCounts(ctx.store.db);
  return presentDataSource(await dataSourceById(ctx, id), counts.get(id) ?? 0);
}

export async function removeDataSource(ctx: AppContext, id: string): Promise<void> {
  await dataSourceById(ctx, id);
  const kept = await deleteDataSourceUnused(ctx.store.db, id);
  if (kept.spider) throw conflict('the data source is used by a spider: point those spiders elsewhere first');
  if (kept.tasks) {
    // Its connection is the only way to the results of those tasks: deleting it would leave them unreadable.
    const params = { count: kept.tasks };
    throw new HttpError(409, errorText('datasource.used_by_tasks', params), {
      code: 'datasource.used_by_tasks',
      params,
    });
  }
  await writerCache(ctx).drop(id);
}

/**
 * Whether a test may send the stored password: only to the server, type and user it was stored for, over a
 * connection at least as protected (a form that changed the host or turned TLS off has to give it again).
 */
function mayReusePassword(stored: DataSourceRow, body: TestDataSourceBody): boolean {
  const tls = JSON.parse(stored.tls) as DataSourceTls;
  const asked = body.tls ?? NO_TLS;
  const asSafe = !tls.enabled || (asked.enabled && (!tls.verify || asked.verify) && (!tls.ca || asked.ca === tls.ca));
  return (
    body.type === stored.type &&
    (body.username ?? '') === stored.username &&
    sameServer({ host: body.host, port: body.port }, stored) &&
    asSafe
  );
}

/** Connects with the given settings (the stored password when none is given for a saved data source). */
export async function testDataSource(ctx: AppContext, body: TestDataSourceBody): Promise<DataSourceTestResult> {
  const stored = body.id ? await dataSourceById(ctx, body.id) : undefined;
  const reuse = !body.password && body.password !== null && !!stored?.password_enc;
  if (reuse && !mayReusePassword(stored, body))
    throw badRequest(errorText('datasource.password_elsewhere'), { code: 'datasource.password_elsewhere' });
  const password = body.password || (reuse ? settingsOf(ctx, stored).password : '');
  // The host a test names is the caller's: it is reached like every request the master makes for someone, only at
  // addresses the outbound policy allows (refused: 422), and at an address that was checked. A host name with
  // several (`localhost`: ::1 and 127.0.0.1) is tried at the next one when nothing listens at the first.
  const host = body.host.trim();
  const policy = await outboundPolicy(ctx.store.db, ctx.config.outboundAllow);
  const addresses = await policy.resolve(host);
  const settings: ConnectionSettings = {
    type: body.type,
    host,
    serverName: net.isIP(host.replace(/^\[|\]$/g, '')) ? undefined : host,
    port: body.port,
    database: body.database,
    username: body.username ?? '',
    password,
    schema: body.schema ?? '',
    tls: body.tls ?? NO_TLS,
  };
  let result: DataSourceTestResult | undefined;
  for (const { address } of addresses) {
    result = await testAt({ ...settings, host: address });
    if (result.ok || !/ECONNREFUSED|EADDRNOTAVAIL|ENETUNREACH|EHOSTUNREACH/.test(result.error)) break;
  }
  return result!;
}

/** One connection attempt, within the test's time. */
async function testAt(s: ConnectionSettings): Promise<DataSourceTestResult> {
  const writer = openWriter(s);
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${TEST_TIMEOUT_MS / 1000} s`)), TEST_TIMEOUT_MS);
    });
    const version = await Promise.race([writer.version(), timeout]);
    return { ok: true, latency_ms: Math.round(performance.now() - started), error: '', version };
  } catch (err) {
    return { ok: false, latency_ms: Math.round(performance.now() - started), error: driverMessage(err), version: '' };
  } finally {
    clearTimeout(timer);
    await writer.close().catch(() => undefined);
  }
}

/** The driver's message; a refused connection has an empty message in some drivers, so the code is added. */
export function driverMessage(err: unknown): string {
  const e = err as { message?: string; code?: string; errors?: { message?: string }[] };
  const inner = e.errors
    ?.map((x) => x.message)
    .filter(Boolean)
    .join('; ');
  const text = e.message || inner || String(err);
  return e.code && !text.includes(e.code) ? `${e.code}: ${text}` : text;
}
