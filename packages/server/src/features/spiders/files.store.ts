import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { inSourceFolder } from '@crawldeck/shared';
import type { DB } from '../../store/schema.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { normalisePath, parentsOf } from './paths.ts';
import { isUniqueViolation } from '../users/users.store.ts';

/**
 * Spider files in the store: `spider_files` rows (one per file or directory, normalised relative POSIX paths)
 * pointing at content-addressed `blobs` (sha256 hex). Blobs are shared between files and spiders and collected
 * when the last reference goes. Every writer here works inside one transaction (or the caller's).
 */
export interface StoredFileEntry {
  path: string;
  is_dir: number;
  hash: string | null;
  size: number;
  update_ts: number;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function inTx<T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

async function putBlob(db: Kysely<DB>, hash: string, content: Buffer, now: number): Promise<void> {
  // DO UPDATE (not DO NOTHING) locks the blob row until commit, so a concurrent garbage collection skips it.
  await db
    .insertInto('blobs')
    .values({ hash, size: content.length, content, create_ts: now })
    .onConflict((oc) => oc.column('hash').doUpdateSet({ size: content.length }))
    .execute();
}

/**
 * Deletes those of `hashes` no file references any more. Best-effort: a blob that a concurrent writer is
 * adopting is skipped (locked or still referenced), never deleted from under it; failures are swallowed.
 */
export async function collectBlobs(db: Kysely<DB>, hashes: Iterable<string | null | undefined>): Promise<void> {
  const list = [...new Set([...hashes].filter((h): h is string => !!h))];
  for (let i = 0; i < list.length; i += 500) {
    const chunk = list.slice(i, i + 500);
    const run = async (d: Kysely<DB>) => {
      await d
        .deleteFrom('blobs')
        .where('hash', 'in', chunk)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('spider_files').select('spider_files.hash').whereRef('spider_files.hash', '=', 'blobs.hash'),
            ),
          ),
        )
        .execute();
    };
    try {
      if (db.isTransaction) {
        // A failed statement must not abort the caller's transaction (PostgreSQL).
        await sql`SAVEPOINT blob_gc`.execute(db);
        try {
          await run(db);
          await sql`RELEASE SAVEPOINT blob_gc`.execute(db);
        } catch {
          await sql`ROLLBACK TO SAVEPOINT blob_gc`.execute(db);
        }
      } else {
        await run(db);
      }
    } catch {
      /* garbage stays until the next collection */
    }
  }
}

export function listFiles(db: Kysely<DB>, spiderId: string): Promise<StoredFileEntry[]> {
  return db
    .selectFrom('spider_files')
    .select(['path', 'is_dir', 'hash', 'size', 'update_ts'])
    .where('spider_id', '=', spiderId)
    .orderBy('path')
    .execute();
}

export function getEntry(db: Kysely<DB>, spiderId: string, path: string): Promise<StoredFileEntry | undefined> {
  return db
    .selectFrom('spider_files')
    .select(['path', 'is_dir', 'hash', 'size', 'update_ts'])
    .where('spider_id', '=', spiderId)
    .where('path', '=', path)
    .executeTakeFirst();
}

export async function readBlob(db: Kysely<DB>, hash: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('blobs').select('content').where('hash', '=', hash).executeTakeFirst();
  return row ? Buffer.from(row.content) : undefined;
}

/** Content of a file; undefined for a missing path or a directory. */
export async function readFile(db: Kysely<DB>, spiderId: string, path: string): Promise<Buffer | undefined> {
  const p = normalisePath(path);
  const row = await db
    .selectFrom('spider_files')
    .innerJoin('blobs', 'blobs.hash', 'spider_files.hash')
    .select('blobs.content')
    .where('spider_files.spider_id', '=', spiderId)
    .where('spider_files.path', '=', p)
    .where('spider_files.is_dir', '=', 0)
    .executeTakeFirst();
  return row ? Buffer.from(row.content) : undefined;
}

/** Makes sure every ancestor of `p` is a directory entry; 409 when one of them is a file. */
async function ensureParents(db: Kysely<DB>, spiderId: string, p: string, now: number): Promise<void> {
  const parents = parentsOf(p);
  if (!parents.length) return;
  const existing = await db
    .selectFrom('spider_files')
    .select(['path', 'is_dir'])
    .where('spider_id', '=', spiderId)
    .where('path', 'in', parents)
    .execute();
  const file = existing.find((e) => !e.is_dir);
  if (file) throw conflict(`"${file.path}" is a file, not a folder`);
  const have = new Set(existing.map((e) => e.path));
  const missing = parents.filter((x) => !have.has(x));
  if (missing.length) {
    await db
      .insertInto('spider_files')
      .values(missing.map((path) => ({ spider_id: spiderId, path, is_dir: 1, hash: null, size: 0, update_ts: now })))
      .onConflict((oc) => oc.columns(['spider_id', 'path']).doNothing())
      .execute();
  }
}

/** Creates or overwrites a file (and its parent folders). 409 when the path is a folder or a parent is a file. */
export async function writeFile(db: Kysely<DB>, spiderId: string, path: string, content: Buffer): Promise<void> {
  const p = normalisePath(path);
  const hash = sha256(content);
  const now = Date.now();
  const old = await inTx(db, async (trx) => {
    const current = await getEntry(trx, spiderId, p);
    if (current?.is_dir) throw conflict(`"${p}" is a folder`);
    await ensureParents(trx, spiderId, p, now);
    await putBlob(trx, hash, content, now);
    await trx
      .insertInto('spider_files')
      .values({ spider_id: spiderId, path: p, is_dir: 0, hash, size: content.length, update_ts: now })
      .onConflict((oc) =>
        oc.columns(['spider_id', 'path']).doUpdateSet({ is_dir: 0, hash, size: content.length, update_ts: now }),
      )
      .execute();
    return current?.hash;
  });
  if (old && old !== hash) await collectBlobs(db, [old]);
}

/** Creates an empty file; 409 when anything exists at that path. */
export async function createFile(db: Kysely<DB>, spiderId: string, path: string): Promise<void> {
  const p = normalisePath(path);
  await inTx(db, async (trx) => {
    if (await getEntry(trx, spiderId, p)) throw conflict(`"${p}" already exists`);
    await writeFile(trx, spiderId, p, Buffer.alloc(0));
  });
}

/** Creates a folder and its parents; 409 when the path already exists. */
export async function makeDir(db: Kysely<DB>, spiderId: string, path: string): Promise<void> {
  const p = normalisePath(path);
  const now = Date.now();
  try {
    await inTx(db, async (trx) => {
      if (await getEntry(trx, spiderId, p)) throw conflict(`"${p}" already exists`);
      await ensureParents(trx, spiderId, p, now);
      await trx
        .insertInto('spider_files')
        .values({ spider_id: spiderId, path: p, is_dir: 1, hash: null, size: 0, update_ts: now })
        .execute();
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`"${p}" already exists`); // created concurrently
    throw err;
  }
}

const under = (p: string) => sql<boolean>`substr(path, 1, ${p.length + 1}) = ${p + '/'}`;

/** Deletes a file, or a folder with everything in it; 404 when missing. */
export async function deletePath(db: Kysely<DB>, spiderId: string, path: string): Promise<number> {
  const p = normalisePath(path);
  const { hashes, count } = await inTx(db, async (trx) => {
    const rows = await trx
      .selectFrom('spider_files')
      .select(['path', 'hash'])
      .where('spider_id', '=', spiderId)
      .where((eb) => eb.or([eb('path', '=', p), under(p)]))
      .execute();
    if (!rows.some((r) => r.path === p)) throw notFound(`file or folder "${p}"`);
    await trx
      .deleteFrom('spider_files')
      .where('spider_id', '=', spiderId)
      .where((eb) => eb.or([eb('path', '=', p), under(p)]))
      .execute();
    return { hashes: rows.map((r) => r.hash), count: rows.length };
  });
  await collectBlobs(db, hashes);
  return count;
}

/** Renames a file or a folder (with its contents); the target must not exist. */
export async function renamePath(db: Kysely<DB>, spiderId: string, from: string, to: string): Promise<void> {
  const src = normalisePath(from);
  const dst = normalisePath(to, { label: 'new_path' });
  if (src === dst) throw badRequest('new_path is the same as path');
  if (dst.startsWith(src + '/')) throw badRequest('a folder cannot be moved into itself');
  const now = Date.now();
  await inTx(db, async (trx) => {
    const rows = await trx
      .selectFrom('spider_files')
      .select(['path', 'is_dir', 'hash', 'size', 'update_ts'])
      .where('spider_id', '=', spiderId)
      .where((eb) => eb.or([eb('path', '=', src), under(src)]))
      .execute();
    if (!rows.some((r) => r.path === src)) throw notFound(`file or folder "${src}"`);
    if (await getEntry(trx, spiderId, dst)) throw conflict(`"${dst}" already exists`);
    await ensureParents(trx, spiderId, dst, now);
    await trx
      .deleteFrom('spider_files')
      .where('spider_id', '=', spiderId)
      .where((eb) => eb.or([eb('path', '=', src), under(src)]))
      .execute();
    const moved = rows.map((r) => ({
      spider_id: spiderId,
      path: dst + r.path.slice(src.length),
      is_dir: r.is_dir,
      hash: r.hash,
      size: r.size,
      update_ts: r.path === src ? now : r.update_ts,
    }));
    for (let i = 0; i < moved.length; i += 500)
      await trx
        .insertInto('spider_files')
        .values(moved.slice(i, i + 500))
        .execute();
  });
}

/**
 * Replaces all files of a spider at once (zip upload, Git sync, Scrapy tools). Paths are normalised; a path that
 * is both a file and a folder, or given twice, is refused with 400 before anything is written. Optional `dirs`
 * keeps empty folders. Sets the spider's is_scrapy when scrapy.cfg sits in its source folder (the root when it has
 * none; never clears it).
 */
export async function replaceFiles(
  db: Kysely<DB>,
  spiderId: string,
  files: { path: string; content: Buffer }[],
  opts: { dirs?: string[] } = {},
): Promise<{ files: number; isScrapy: boolean }> {
  const now = Date.now();
  let isScrapy = false;
  const filePaths = new Map<string, { content: Buffer; hash: string }>();
  for (const f of files) {
    const p = normalisePath(f.path);
    if (filePaths.has(p)) throw badRequest(`"${p}" is given twice`);
    filePaths.set(p, { content: f.content, hash: sha256(f.content) });
  }
  const dirs = new Set<string>();
  for (const d of opts.dirs ?? []) {
    const p = normalisePath(d);
    dirs.add(p);
    for (const parent of parentsOf(p)) dirs.add(parent);
  }
  for (const p of filePaths.keys()) for (const parent of parentsOf(p)) dirs.add(parent);
  for (const d of dirs) if (filePaths.has(d)) throw badRequest(`"${d}" is both a file and a folder`);
  const old = await inTx(db, async (trx) => {
    const spider = await trx.selectFrom('spiders').select('src').where('id', '=', spiderId).executeTakeFirst();
    isScrapy = filePaths.has(inSourceFolder(spider?.src ?? '', 'scrapy.cfg'));
    const previous = await trx
      .selectFrom('spider_files')
      .select('hash')
      .where('spider_id', '=', spiderId)
      .where('hash', 'is not', null)
      .execute();
    await trx.deleteFrom('spider_files').where('spider_id', '=', spiderId).execute();
    const blobs = new Map<string, Buffer>();
    for (const { hash, content } of filePaths.values()) blobs.set(hash, content);
    // Batches bounded by rows and bytes keep statements within both engines' parameter and packet limits.
    let batch: { hash: string; size: number; content: Buffer; create_ts: number }[] = [];
    let bytes = 0;
    const flush = async () => {
      if (!batch.length) return;
      await trx
        .insertInto('blobs')
        .values(batch)
        .onConflict((oc) => oc.column('hash').doUpdateSet({ size: sql`excluded.size` }))
        .execute();
      batch = [];
      bytes = 0;
    };
    for (const [hash, content] of blobs) {
      batch.push({ hash, size: content.length, content, create_ts: now });
      bytes += content.length;
      if (batch.length >= 200 || bytes >= 8 * 1024 * 1024) await flush();
    }
    await flush();
    const rows = [
      ...[...dirs].map((path) => ({
        spider_id: spiderId,
        path,
        is_dir: 1,
        hash: null as string | null,
        size: 0,
        update_ts: now,
      })),
      ...[...filePaths].map(([path, f]) => ({
        spider_id: spiderId,
        path,
        is_dir: 0,
        hash: f.hash as string | null,
        size: f.content.length,
        update_ts: now,
      })),
    ];
    for (let i = 0; i < rows.length; i += 1000)
      await trx
        .insertInto('spider_files')
        .values(rows.slice(i, i + 1000))
        .execute();
    if (isScrapy) await trx.updateTable('spiders').set({ is_scrapy: 1 }).where('id', '=', spiderId).execute();
    return previous.map((r) => r.hash);
  });
  const kept = new Set([...filePaths.values()].map((f) => f.hash));
  await collectBlobs(
    db,
    old.filter((h) => h && !kept.has(h)),
  );
  return { files: filePaths.size, isScrapy };
}
