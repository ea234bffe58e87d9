import type { FastifyRequest } from 'fastify';
import {
  CreateSpiderBody,
  FileQuery,
  PathBody,
  PathQuery,
  RenameFileBody,
  SaveFileBody,
  SpiderListQuery,
  UpdateSpiderBody,
  type FileEntry,
  type FileTreeNode,
  type UploadResult,
} from '@crawldeck/shared';
import { LooseIdParams } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { HttpError, badRequest, notFound } from '../../http/errors.ts';
import { readForm, type ReadForm } from '../../http/multipart.ts';
import { createFile, deletePath, getEntry, listFiles, makeDir, readFile, renamePath, replaceFiles, writeFile, type StoredFileEntry } from './files.store.ts';
import { baseName, normalisePath } from './paths.ts';
import { createSpider, deleteSpider, fieldsToSpiderInput, parseWith, spiderFor, updateSpider } from './spiders.service.ts';
import { getSpiderWithOwner, listSpiders, presentSpider, setCommandIfEmpty } from './spiders.store.ts';
import { inferCommand } from './command-inference.ts';
import { readZip, zipLimitsFromEnv, type ZipContents, type ZipLimits } from './zip.ts';

export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

function maxFileBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.CRAWLDECK_MAX_FILE_BYTES;
  if (v === undefined || v === '') return DEFAULT_MAX_FILE_BYTES;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`CRAWLDECK_MAX_FILE_BYTES must be a positive integer, got ${v}`);
  return n;
}

const mib = (n: number) => (n % (1024 * 1024) === 0 ? `${n / 1024 / 1024} MiB` : `${n} bytes`);

/** Reads a multipart request: string fields and at most one file (field `file`), bounded in size. */
function readMultipart(req: FastifyRequest, maxFileBytes: number): Promise<ReadForm> {
  return readForm(req, { fileField: 'file', maxFileBytes, tooLarge: `the zip is larger than ${mib(maxFileBytes)} (CRAWLDECK_ZIP_MAX_BYTES)` });
}

async function zipFromUpload(file: { name: string; data: Buffer } | undefined, limits: ZipLimits): Promise<ZipContents> {
  if (!file) throw badRequest('a zip file is required in the form field "file"');
  return readZip(file.data, limits);
}

function present(e: StoredFileEntry): FileEntry {
  return { name: baseName(e.path), path: e.path, is_dir: !!e.is_dir, size: Number(e.size), update_ts: iso(e.update_ts) };
}

/** Spec §9: directories first, then names descending. */
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

const IdParams = LooseIdParams;

/**
 * Spiders (issue 3 item 1) and their files (item 2). Normal users see their own and public spiders and change
 * only their own; admins see and change all.
 */
export const spidersFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const zipLimits = zipLimitsFromEnv();
  const maxFileBytes = maxFileBytesFromEnv();
  // A stored zip is never much larger than what it expands to.
  const maxZipUpload = zipLimits.maxBytes + 1024 * 1024;

  const answerSpider = async (id: string) => presentSpider((await getSpiderWithOwner(db, id))!);

  app.get('/api/spiders', { config: { access: 'user' }, schema: { querystring: SpiderListQuery } }, async (req) => {
    const q = req.query;
    const page = paging(q, 10);
    const { list, total } = await listSpiders(db, req.user, q, page);
    return ok({ list, total }, total);
  });

  app.put('/api/spiders', { config: { access: 'user' } }, async (req) => {
    let input: CreateSpiderBody;
    let zip: ZipContents | undefined;
    if (req.isMultipart()) {
      const { fields, file } = await readMultipart(req, maxZipUpload);
      input = parseWith(CreateSpiderBody, fieldsToSpiderInput(fields));
      zip = file ? await zipFromUpload(file, zipLimits) : undefined;
    } else {
      input = parseWith(CreateSpiderBody, req.body ?? {});
    }
    const { id, upload } = await createSpider(ctx, req.user, input, zip);
    const spider = await answerSpider(id);
    const result = upload && zip ? { ...spider, upload: { files: upload.files, stripped_folder: zip.strippedFolder, is_scrapy: upload.isScrapy } satisfies UploadResult } : spider;
    return ok(result);
  });

  app.get('/api/spiders/:id', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    await spiderFor(db, req.user, req.params.id, 'read');
    return ok(await answerSpider(req.params.id));
  });

  // Schema coercion would turn `git_password: null` (clear it) into '' (keep it): look before validation.
  const clearsPassword = new WeakSet<object>();
  app.post('/api/spiders/:id', {
    config: { access: 'user' },
    schema: { params: IdParams, body: UpdateSpiderBody },
    preValidation: async (req) => {
      const body = req.body as { git_password?: unknown } | null;
      if (body && typeof body === 'object' && body.git_password === null) clearsPassword.add(req);
    },
  }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    await updateSpider(ctx, req.user, row, clearsPassword.has(req) ? { ...req.body, git_password: null } : req.body);
    return ok(await answerSpider(row.id));
  });

  app.delete('/api/spiders/:id', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    await deleteSpider(ctx, row.id);
    return ok(null);
  });

  app.post('/api/spiders/:id/upload', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    if (!req.isMultipart()) throw badRequest('send the zip as multipart/form-data in the field "file"');
    const { file } = await readMultipart(req, maxZipUpload);
    const zip = await zipFromUpload(file, zipLimits);
    const res = await replaceFiles(db, row.id, zip.files, { dirs: zip.dirs });
    await db.updateTable('spiders').set({ update_ts: Date.now() }).where('id', '=', row.id).execute();
    const cmd = row.cmd.trim() ? row.cmd : inferCommand(zip.files);
    if (cmd !== row.cmd) await setCommandIfEmpty(db, row.id, cmd);
    const result: UploadResult = { files: res.files, stripped_folder: zip.strippedFolder, is_scrapy: res.isScrapy || !!row.is_scrapy, cmd };
    return ok(result);
  });

  // ---- files ----

  app.get('/api/spiders/:id/dir', { config: { access: 'user' }, schema: { params: IdParams, querystring: PathQuery } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'read');
    const dir = normalisePath(req.query.path ?? '', { allowRoot: true });
    if (dir) {
      const e = await getEntry(db, row.id, dir);
      if (!e) throw notFound(`folder "${dir}"`);
      if (!e.is_dir) throw badRequest(`"${dir}" is a file, not a folder`);
    }
    const prefix = dir ? dir + '/' : '';
    const all = await listFiles(db, row.id);
    const children = all.filter((e) => e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes('/') && e.path !== dir);
    return ok(children.map(present).sort(byDirsThenNameDesc));
  });

  app.put('/api/spiders/:id/dir', { config: { access: 'user' }, schema: { params: IdParams, body: PathBody } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    await makeDir(db, row.id, req.body.path);
    return ok(null);
  });

  app.get('/api/spiders/:id/file/tree', { config: { access: 'user' }, schema: { params: IdParams } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'read');
    return ok(buildTree(await listFiles(db, row.id)));
  });

  app.get('/api/spiders/:id/file', { config: { access: 'user' }, schema: { params: IdParams, querystring: FileQuery } }, async (req, reply) => {
    const row = await spiderFor(db, req.user, req.params.id, 'read');
    const p = normalisePath(req.query.path);
    const entry = await getEntry(db, row.id, p);
    if (!entry) throw notFound(`file "${p}"`);
    if (entry.is_dir) throw badRequest(`"${p}" is a folder, not a file`);
    const content = (await readFile(db, row.id, p)) ?? Buffer.alloc(0);
    if (req.query.raw === '1' || req.query.raw === 'true') {
      const name = baseName(p);
      return reply
        .type('application/octet-stream')
        .header('content-disposition', `attachment; filename="${name.replace(/[^\x20-\x7e]|"/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`)
        .send(content);
    }
    if (content.length > maxFileBytes) throw new HttpError(413, `"${p}" is larger than ${mib(maxFileBytes)} and cannot be opened in the editor; download it with raw=1`);
    if (isBinary(content)) throw new HttpError(415, 'binary file cannot be opened as text');
    return ok(content.toString('utf8'));
  });

  app.post('/api/spiders/:id/file', { config: { access: 'user' }, schema: { params: IdParams, body: SaveFileBody } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    const p = normalisePath(req.body.path);
    const content = Buffer.from(req.body.content, 'utf8');
    if (content.length > maxFileBytes) throw new HttpError(413, `the file is larger than the limit of ${mib(maxFileBytes)} (CRAWLDECK_MAX_FILE_BYTES)`);
    await writeFile(db, row.id, p, content);
    return ok(null);
  });

  app.put('/api/spiders/:id/file', { config: { access: 'user' }, schema: { params: IdParams, body: PathBody } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    await createFile(db, row.id, req.body.path);
    return ok(null);
  });

  // The path may come as a JSON body (the console's delete helper) or as a query parameter.
  app.delete('/api/spiders/:id/file', { config: { access: 'user' }, schema: { params: IdParams, querystring: PathQuery } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    const body = req.body as { path?: unknown } | undefined;
    const raw = body && typeof body === 'object' && body.path !== undefined ? body.path : req.query.path;
    const count = await deletePath(db, row.id, normalisePath(raw));
    return ok({ deleted: count });
  });

  app.post('/api/spiders/:id/file/rename', { config: { access: 'user' }, schema: { params: IdParams, body: RenameFileBody } }, async (req) => {
    const row = await spiderFor(db, req.user, req.params.id, 'write');
    await renamePath(db, row.id, req.body.path, req.body.new_path);
    return ok(null);
  });
};
