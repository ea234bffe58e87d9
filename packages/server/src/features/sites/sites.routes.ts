import {
  InsertUrlBody,
  QueryUrlQuery,
  SITE_PAGE_SIZE,
  SiteListQuery,
  UpdateSiteBody,
  UpdateUrlBody,
  isValidHttpUrl,
  isValidRegionCode,
  newId,
  type CollectedUrl,
  type Site,
  type SiteFilter,
  type SiteImportResult,
  type SiteList,
} from '@crawldeck/shared';
import {
  CategoryListQuery,
  CategoryListResponse,
  CollectedUrlListResponse,
  CollectedUrlResponse,
  DeleteUrlQuery,
  LooseIdParams,
  NullResponse,
  SiteImportResponse,
  SiteListResponse,
  SiteResponse,
} from '@crawldeck/shared';
import type { AppContext, Feature, TypedApp } from '../../context.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { readForm } from '../../http/multipart.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { validateSitesCsv } from './sites.import.ts';
import {
  categories,
  deleteUrl,
  getUrl,
  insertUrl,
  listSites,
  listUrls,
  mainCategories,
  setSiteCategory,
  upsertSites,
  updateUrl,
  type CollectedUrlRow,
  type SiteRow,
} from './sites.store.ts';

const IdParams = LooseIdParams;
const MAX_CSV_BYTES = 32 * 1024 * 1024;

function presentSite(r: SiteRow): Site {
  return {
    _id: r.id,
    domain: r.domain,
    main_category: r.main_category,
    category: r.category,
    rank: r.rank == null ? null : Number(r.rank),
    name: r.name,
    description: r.description,
    create_ts: iso(r.create_ts),
    update_ts: iso(r.update_ts),
  };
}

function presentUrl(r: CollectedUrlRow): CollectedUrl {
  return {
    _id: r.id,
    url: r.url,
    regionCode: r.region_code,
    title: r.title,
    create_ts: iso(r.create_ts),
    update_ts: iso(r.update_ts),
  };
}

function parseFilter(raw: string | undefined): SiteFilter {
  if (!raw) return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw badRequest('filter must be a JSON object such as {"main_category":"News","category":"World"}');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw badRequest('filter must be a JSON object');
  const f = v as Record<string, unknown>;
  const out: SiteFilter = {};
  for (const k of ['main_category', 'category'] as const) {
    if (f[k] === undefined || f[k] === null || f[k] === '') continue;
    if (typeof f[k] !== 'string') throw badRequest(`filter.${k} must be a string`);
    out[k] = f[k];
  }
  return out;
}

function checkUrl(url: string, regionCode: string): void {
  if (!isValidHttpUrl(url)) throw badRequest('url must be an http:// or https:// URL');
  if (!isValidRegionCode(regionCode))
    throw badRequest('regionCode must be a 2–3 letter or 3 digit region code such as US, CN or 419');
}

/** Sites: the list with its category filters, a category change, the CSV import. */
function siteRoutes(app: TypedApp, ctx: AppContext): void {
  const { db } = ctx.store;
  app.get(
    '/api/sites',
    { config: { access: 'user' }, schema: { querystring: SiteListQuery, response: { 200: SiteListResponse } } },
    async (req) => {
      const { rows, total } = await listSites(
        db,
        parseFilter(req.query.filter),
        req.query.keyword?.trim(),
        paging(req.query, SITE_PAGE_SIZE),
      );
      const data: SiteList = { items: rows.map(presentSite), total_count: total };
      return ok(data, total);
    },
  );
  app.get(
    '/api/sites/get/get_main_category_list',
    { config: { access: 'user' }, schema: { response: { 200: CategoryListResponse } } },
    async () => ok({ items: await mainCategories(db) }),
  );
  app.get(
    '/api/sites/get/get_category_list',
    { config: { access: 'user' }, schema: { querystring: CategoryListQuery, response: { 200: CategoryListResponse } } },
    async (req) => ok({ items: await categories(db, req.query.main_category) }),
  );
  app.post(
    '/api/sites/:id',
    { config: { access: 'user' }, schema: { params: IdParams, body: UpdateSiteBody, response: { 200: SiteResponse } } },
    async (req) => {
      const row = await setSiteCategory(db, req.params.id, req.body.category.trim());
      if (!row) throw notFound('site');
      return ok(presentSite(row));
    },
  );
  // All-or-nothing: the whole file is validated first, then written in one transaction (upsert by domain).
  app.post(
    '/api/sites/import',
    { config: { access: 'admin' }, schema: { response: { 200: SiteImportResponse } } },
    async (req) => {
      const { file } = await readForm(req, {
        fileField: 'file',
        maxFileBytes: MAX_CSV_BYTES,
        tooLarge: `the CSV is larger than ${MAX_CSV_BYTES / 1024 / 1024} MB`,
      });
      if (!file) throw badRequest('no file in the upload: send the CSV in the form field "file"');
      const { rows, errors } = validateSitesCsv(file.data.toString('utf8'));
      if (errors.length) throw badRequest(`the CSV was not imported: ${errors.join(' | ')}`);
      const now = Date.now();
      const { existing } = await upsertSites(db, rows, () => newId(now), now);
      const result: SiteImportResult = { imported: rows.length, created: rows.length - existing, updated: existing };
      return ok(result);
    },
  );
}

/** Collected URLs: list, add, change, delete. */
function collectedUrlRoutes(app: TypedApp, ctx: AppContext): void {
  const { db } = ctx.store;
  app.get(
    '/api/queryUrl',
    { config: { access: 'user' }, schema: { querystring: QueryUrlQuery, response: { 200: CollectedUrlListResponse } } },
    async (req, reply) => {
      const page = paging({ page_num: req.query.page, page_size: req.query.limited }, 10);
      const { rows, total } = await listUrls(db, req.query.regionCode?.toUpperCase(), page);
      return reply.send({ ...ok(rows.map(presentUrl), total), totalCount: total });
    },
  );
  app.post(
    '/api/insertUrl',
    { config: { access: 'user' }, schema: { body: InsertUrlBody, response: { 200: CollectedUrlResponse } } },
    async (req) => {
      const url = req.body.url.trim();
      const region = req.body.regionCode.trim().toUpperCase();
      checkUrl(url, region);
      const now = Date.now();
      const row = {
        id: newId(now),
        url,
        region_code: region,
        title: req.body.title?.trim() ?? '',
        create_ts: now,
        update_ts: now,
      };
      await insertUrl(db, row);
      return ok(presentUrl(row));
    },
  );
  app.post(
    '/api/updateUrl',
    { config: { access: 'user' }, schema: { body: UpdateUrlBody, response: { 200: CollectedUrlResponse } } },
    async (req) => {
      const cur = await getUrl(db, req.body.id);
      if (!cur) throw notFound('collected URL');
      const url = req.body.url?.trim() ?? cur.url;
      const region = req.body.regionCode?.trim().toUpperCase() ?? cur.region_code;
      checkUrl(url, region);
      const patch = { url, region_code: region, title: req.body.title?.trim() ?? cur.title, update_ts: Date.now() };
      await updateUrl(db, cur.id, patch);
      return ok(presentUrl({ ...cur, ...patch }));
    },
  );
  app.get(
    '/api/deleteUrl',
    { config: { access: 'user' }, schema: { querystring: DeleteUrlQuery, response: { 200: NullResponse } } },
    async (req) => {
      if (!(await deleteUrl(db, req.query.id))) throw notFound('collected URL');
      return ok(null);
    },
  );
}

/** Sites and collected URLs (sites screen, collected-URL API for scripts). Response shapes: shared/sites.ts. */
export const sitesFeature: Feature = (app, ctx) => {
  siteRoutes(app, ctx);
  collectedUrlRoutes(app, ctx);
};
