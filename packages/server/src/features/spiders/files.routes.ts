import type { FastifyReply } from 'fastify';
import {
  FileEntriesResponse,
  FileQuery,
  FileTextResponse,
  FileTreeResponse,
  LooseIdParams as IdParams,
  NullResponse,
  PathBody,
  PathQuery,
  PathsDeletedResponse,
  RenameFileBody,
  SaveFileBody,
  type FileEntry,
  type FileTreeNode,
} from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { AppContext, TypedApp } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { iso, ok } from '../../http/envelope.ts';
import { HttpError, badRequest, notFound } from '../../http/errors.ts';
import { attachmentDisposition } from '../../http/attachment.ts';
import {
  createFile,
  deletePath,
  getEntry,
  listFiles,
  makeDir,
  readFile,
  renamePath,
  writeFile,
  type StoredFileEntry,
} from './files.store.ts';
import { baseName, normalisePath } from './paths.ts';
import { spiderFor } from './spiders.service.ts';

export const mib = (n: number) => (n % (1024 * 1024) === 0 ? `${n / 1024 / 1024} MiB` : `${n} bytes`);

function present(e: StoredFileEntry): FileEntry {
  return {
    name: baseName(e.path),
    path: e.path,
    is_dir: !!e.is_dir,
    size: Number(e.size),
    update_ts: iso(e.update_ts),
  };
}

/** Directories first, then names descending. */
function byDirsThenNameDesc(a: FileEntry, b: FileEntry): number {
  if (a.is_dir !== b.is_dir) return a.is_dir ? -1 : 1;
  return a.name < b.name ? 1 : a.name > b.name ? -1 : 0;
}

function buildTree(entries: StoredFileEntry[]): FileTreeNode {
  const root: FileTreeNode = { name: '', path: '', is_dir: true, size: 0, update_ts: null, children: [] };
  const nodes = new Map<string, FileTreeNode>([['', root]]);
  const sorted = [...entries].sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  for (const e of sorted) {
    const node: FileTreeNode = present(e);
    if (node.is_dir) node.children = [];
    const i = e.path.lastIndexOf('/');
    const parent = nodes.get(i < 0 ? '' : e.path.slice(0, i)) ?? root;
    parent.children!.push(node);
    if (node.is_dir) nodes.set(e.path, node);
  }
  const sortAll = (n: FileTreeNode) => {
    if (!n.children) return;
    n.children.sort(byDirsThenNameDesc);
    n.children.forEach(sortAll);
  };
  sortAll(root);
  return root;
}

function isBinary(buf: Buffer): boolean {
  if (buf.subarray(0, 8192).includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return false;
  } catch {
    return true;
  }
}

/** The entries directly inside folder `path` ('' is the root). */
async function listDir(db: Kysely<DB>, spiderId: string, path: string | undefined): Promise<FileEntry[]> {
  const dir = normalisePath(path ?? '', { allowRoot: true });
  if (dir) {
    const e = await getEntry(db, spiderId, dir);
    if (!e) throw notFound(`folder "${dir}"`);
    if (!e.is_dir) throw badRequest(`"${dir}" is a file, not a folder`);
  }
  const prefix = dir ? dir + '/' : '';
  const all = await listFiles(db, spiderId);
  const children = all.filter(
    (e) => e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes('/') && e.path !== dir,
  );
  return children.map(present).sort(byDirsThenNameDesc);
}

/** A file's bytes; 404 for a missing file, 400 for a folder. */
async function fileBytes(db: Kysely<DB>, spiderId: string, p: string): Promise<Buffer> {
  const entry = await getEntry(db, spiderId, p);
  if (!entry) throw notFound(`file "${p}"`);
  if (entry.is_dir) throw badRequest(`"${p}" is a folder, not a file`);
  return (await readFile(db, spiderId, p)) ?? Buffer.alloc(0);
}

function sendBytes(reply: FastifyReply, name: string, content: Buffer) {
  return reply
    .type('application/octet-stream')
    .header('content-disposition', attachmentDisposition(name))
    .send(content);
}

/** Reading a spider's files: folder listings, the tree, one file as text (or its bytes with raw=1). */
function fileReadRoutes(app: TypedApp, ctx: AppContext, maxFileBytes: number): void {
  const { db } = ctx.store;
  const user = { access: 'user' } as const;
  app.get(
    '/api/spiders/:id/dir',
    { config: user, schema: { params: IdParams, querystring: PathQuery, response: { 200: FileEntriesResponse } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await listDir(db, row.id, req.query.path));
    },
  );
  app.get(
    '/api/spiders/:id/file/tree',
    { config: user, schema: { params: IdParams, response: { 200: FileTreeResponse } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'read');
      return ok(buildTree(await listFiles(db, row.id)));
    },
  );
  app.get(
    '/api/spiders/:id/file',
    { config: user, schema: { params: IdParams, querystring: FileQuery, response: { 200: FileTextResponse } } },
    async (req, reply) => {
      const row = await spiderFor(db, req.user, req.params.id, 'read');
      const p = normalisePath(req.query.path);
      const content = await fileBytes(db, row.id, p);
      // Bytes go out as they are: the JSON response schema of this route does not apply to them.
      if (req.query.raw === '1' || req.query.raw === 'true')
        return sendBytes(reply as FastifyReply, baseName(p), content);
      if (content.length > maxFileBytes)
        throw new HttpError(
          413,
          `"${p}" is larger than ${mib(maxFileBytes)} and cannot be opened in the editor; download it with raw=1`,
        );
      if (isBinary(content)) throw new HttpError(415, 'binary file cannot be opened as text');
      return ok(content.toString('utf8'));
    },
  );
}

/** Changing a spider's files: save, create, make a folder, delete, rename. */
function fileWriteRoutes(app: TypedApp, ctx: AppContext, maxFileBytes: number): void {
  const { db } = ctx.store;
  const user = { access: 'user' } as const;
  app.post(
    '/api/spiders/:id/file',
    { config: user, schema: { params: IdParams, body: SaveFileBody, response: { 200: NullResponse } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      const p = normalisePath(req.body.path);
      const content = Buffer.from(req.body.content, 'utf8');
      if (content.length > maxFileBytes)
        throw new HttpError(
          413,
          `the file is larger than the limit of ${mib(maxFileBytes)} (CRAWLDECK_MAX_FILE_BYTES)`,
        );
      await writeFile(db, row.id, p, content);
      return ok(null);
    },
  );
  app.put(
    '/api/spiders/:id/file',
    { config: user, schema: { params: IdParams, body: PathBody, response: { 200: NullResponse } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      await createFile(db, row.id, req.body.path);
      return ok(null);
    },
  );
  app.put(
    '/api/spiders/:id/dir',
    { config: user, schema: { params: IdParams, body: PathBody, response: { 200: NullResponse } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      await makeDir(db, row.id, req.body.path);
      return ok(null);
    },
  );
  // The path may come as a JSON body (the console's delete helper) or as a query parameter.
  app.delete(
    '/api/spiders/:id/file',
    { config: user, schema: { params: IdParams, querystring: PathQuery, response: { 200: PathsDeletedResponse } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      const body = req.body as { path?: unknown } | undefined;
      const raw = body && typeof body === 'object' && body.path !== undefined ? body.path : req.query.path;
      return ok({ deleted: await deletePath(db, row.id, normalisePath(raw)) });
    },
  );
  app.post(
    '/api/spiders/:id/file/rename',
    { config: user, schema: { params: IdParams, body: RenameFileBody, response: { 200: NullResponse } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      await renamePath(db, row.id, req.body.path, req.body.new_path);
      return ok(null);
    },
  );
}

/** The files of a spider, as the file editor and the CLI use them. */
export function fileRoutes(app: TypedApp, ctx: AppContext): void {
  const maxFileBytes = ctx.config.maxFileBytes;
  fileReadRoutes(app, ctx, maxFileBytes);
  fileWriteRoutes(app, ctx, maxFileBytes);
}
