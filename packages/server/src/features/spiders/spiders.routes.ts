import type { FastifyRequest } from 'fastify';
import {
  CreateSpiderBody,
  CreatedSpiderResponse,
  LooseIdParams as IdParams,
  NullResponse,
  SpiderListQuery,
  SpiderListResponse,
  SpiderResponse,
  UpdateSpiderBody,
  UploadResponse,
  type CreatedSpider,
  type UploadResult,
} from '@crawldeck/shared';
import type { AppContext, Feature, TypedApp } from '../../context.ts';
import { startSpiderPurger } from './spider-purge.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ok, paging } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';
import { readForm, type ReadForm } from '../../http/multipart.ts';
import { replaceFiles } from './files.store.ts';
import { fileRoutes, mib } from './files.routes.ts';
import {
  createSpider,
  deleteSpider,
  fieldsToSpiderInput,
  parseWith,
  spiderFor,
  updateSpider,
} from './spiders.service.ts';
import {
  getSpiderWithOwner,
  listSpiders,
  presentSpider,
  setCommandIfEmpty,
  updateSpiderRow,
  type SpiderRow,
} from './spiders.store.ts';
import { inferCommand } from './command-inference.ts';
import { readZip, type ZipContents, type ZipLimits } from './zip.ts';

/** The zip upload limits: what a zip may expand to, and its own size (never much larger than that). */
interface Uploads {
  limits: ZipLimits;
  maxBytes: number;
}

/** Reads a multipart request: string fields and at most one file (field `file`), bounded in size. */
function readMultipart(req: FastifyRequest, maxFileBytes: number): Promise<ReadForm> {
  return readForm(req, {
    fileField: 'file',
    maxFileBytes,
    tooLarge: `the zip is larger than ${mib(maxFileBytes)} (CRAWLDECK_ZIP_MAX_BYTES)`,
  });
}

async function zipFromUpload(
  file: { name: string; data: Buffer } | undefined,
  limits: ZipLimits,
): Promise<ZipContents> {
  if (!file) throw badRequest('a zip file is required in the form field "file"');
  return readZip(file.data, limits);
}

async function storedSpider(ctx: AppContext, id: string) {
  return presentSpider((await getSpiderWithOwner(ctx.store.db, id))!);
}

/** PUT /spiders: JSON fields, or a multipart form with the fields and optionally a zip of its files. */
async function createFromRequest(
  ctx: AppContext,
  req: FastifyRequest,
  user: AuthUser,
  uploads: Uploads,
): Promise<CreatedSpider> {
  let input: CreateSpiderBody;
  let zip: ZipContents | undefined;
  if (req.isMultipart()) {
    const { fields, file } = await readMultipart(req, uploads.maxBytes);
    input = parseWith(CreateSpiderBody, fieldsToSpiderInput(fields));
    zip = file ? await zipFromUpload(file, uploads.limits) : undefined;
  } else {
    input = parseWith(CreateSpiderBody, req.body ?? {});
  }
  const { id, upload } = await createSpider(ctx, user, input, zip);
  const spider = await storedSpider(ctx, id);
  if (!upload || !zip) return spider;
  return {
    ...spider,
    upload: { files: upload.files, stripped_folder: zip.strippedFolder, is_scrapy: upload.isScrapy },
  };
}

/** POST /spiders/{id}/upload: the zip's files replace the spider's. */
async function uploadZip(
  ctx: AppContext,
  req: FastifyRequest,
  row: SpiderRow,
  uploads: Uploads,
): Promise<UploadResult> {
  if (!req.isMultipart()) throw badRequest('send the zip as multipart/form-data in the field "file"');
  const { file } = await readMultipart(req, uploads.maxBytes);
  const zip = await zipFromUpload(file, uploads.limits);
  const res = await replaceFiles(ctx.store.db, row.id, zip.files, { dirs: zip.dirs });
  await updateSpiderRow(ctx.store.db, row.id, {});
  // A spider without a command gets the one its files suggest (a typed command is never replaced).
  const cmd = row.cmd.trim() ? row.cmd : inferCommand(zip.files);
  if (cmd !== row.cmd) await setCommandIfEmpty(ctx.store.db, row.id, cmd);
  return { files: res.files, stripped_folder: zip.strippedFolder, is_scrapy: res.isScrapy || !!row.is_scrapy, cmd };
}

function spiderRoutes(app: TypedApp, ctx: AppContext, uploads: Uploads): void {
  const { db } = ctx.store;
  const user = { access: 'user' } as const;
  app.get(
    '/api/spiders',
    { config: user, schema: { querystring: SpiderListQuery, response: { 200: SpiderListResponse } } },
    async (req) => {
      const { list, total } = await listSpiders(db, req.user, req.query, paging(req.query, 10));
      return ok({ list, total }, total);
    },
  );
  app.put('/api/spiders', { config: user, schema: { response: { 200: CreatedSpiderResponse } } }, async (req) =>
    ok(await createFromRequest(ctx, req, req.user, uploads)),
  );
  app.get(
    '/api/spiders/:id',
    { config: user, schema: { params: IdParams, response: { 200: SpiderResponse } } },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await storedSpider(ctx, req.params.id));
    },
  );
  // Schema coercion would turn `git_password: null` (clear it) into '' (keep it): look before validation.
  const clearsPassword = new WeakSet<object>();
  const preValidation = async (req: FastifyRequest) => {
    const body = req.body as { git_password?: unknown } | null;
    if (body && typeof body === 'object' && body.git_password === null) clearsPassword.add(req);
  };
  app.post(
    '/api/spiders/:id',
    {
      config: user,
      schema: { params: IdParams, body: UpdateSpiderBody, response: { 200: SpiderResponse } },
      preValidation,
    },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      await updateSpider(ctx, req.user, row, clearsPassword.has(req) ? { ...req.body, git_password: null } : req.body);
      return ok(await storedSpider(ctx, row.id));
    },
  );
  app.delete(
    '/api/spiders/:id',
    { config: user, schema: { params: IdParams, response: { 200: NullResponse } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      await deleteSpider(ctx, row.id);
      return ok(null);
    },
  );
  app.post(
    '/api/spiders/:id/upload',
    { config: user, schema: { params: IdParams, response: { 200: UploadResponse } } },
    async (req) => {
      const row = await spiderFor(db, req.user, req.params.id, 'write');
      return ok(await uploadZip(ctx, req, row, uploads));
    },
  );
}

/** Spiders and their files. Normal users see their own and public spiders and change only their own; admins all. */
export const spidersFeature: Feature = (app, ctx) => {
  const limits: ZipLimits = { maxEntries: ctx.config.zipMaxEntries, maxBytes: ctx.config.zipMaxBytes };
  spiderRoutes(app, ctx, { limits, maxBytes: limits.maxBytes + 1024 * 1024 });
  fileRoutes(app, ctx);
  const purger = startSpiderPurger(ctx);
  app.addHook('onReady', async () => purger.kick());
  ctx.events.on('spider.deleted', () => purger.kick());
  // A user's spiders go with the user: their purge starts at once too.
  ctx.events.on('user.deleted', () => purger.kick());
};
