import { sql, type Selectable } from 'kysely';
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
import { CategoryListQuery, DeleteUrlQuery, LooseIdParams } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { readForm } from '../../http/multipart.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { validateSitesCsv } from './sites.import.ts';

const IdParams = LooseIdParams;
const MAX_CSV_BYTES = 32 * 1024 * 1024;
const INSERT_CHUNK = 500;

function presentSite(r: Selectable<DB['sites']>): Site {
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

function presentUrl(r: Selectable<DB['collected_urls']>): CollectedUrl {
  return { _id: r.id, url: r.url, regionCode: r.region_code, title: r.title, create_ts: iso(r.create_ts), update_ts: iso(r.update_ts) };
}

/** LIKE pattern for a substring search with %, _ and \ taken literally. */
function likePattern(keyword: string): string {
  return `%${keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
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

/** Sites and collected URLs (spec §3 "Site", §7 "Sites" and "Collected URLs"). Response shapes: shared/sites.ts. */
export const sitesFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;

  app.get('/api/sites', { config: { access: 'user' }, schema: { querystring: SiteListQuery } }, async (req) => {
    const { limit, offset } = paging(req.query, SITE_PAGE_SIZE);
    const filter = parseFilter(req.query.filter);
    const keyword = req.query.keyword?.trim();
    let q = db.selectFrom('sites');
    if (filter.main_category) q = q.where('main_category', '=', filter.main_category);
    if (filter.category) q = q.where('category', '=', filter.category);
    if (keyword) {
      const p = likePattern(keyword);
      q = q.where((eb) =>
        eb.or([
          eb(sql`lower(domain)`, 'like', sql`${p} ESCAPE '\\'`),
          eb(sql`lower(name)`, 'like', sql`${p} ESCAPE '\\'`),
          eb(sql`lower(description)`, 'like', sql`${p} ESCAPE '\\'`),
        ]),
      );
    }
    const [rows, count] = await Promise.all([
      // Most popular (lowest rank) first; unranked sites last, then by domain.
      q.selectAll().orderBy(sql`CASE WHEN rank IS NULL THEN 1 ELSE 0 END`).orderBy('rank', 'asc').orderBy('domain', 'asc').limit(limit).offset(offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const data: SiteList = { items: rows.map(presentSite), total_count: Number(count.n) };
    return ok(data, data.total_count);
  });

  app.get('/api/sites/get/get_main_category_list', { config: { access: 'user' } }, async () => {
    const rows = await db.selectFrom('sites').select('main_category').distinct().where('main_category', '!=', '').orderBy('main_category').execute();
    return ok({ items: rows.map((r) => r.main_category) });
  });

  app.get('/api/sites/get/get_category_list', { config: { access: 'user' }, schema: { querystring: CategoryListQuery } }, async (req) => {
    let q = db.selectFrom('sites').select('category').distinct().where('category', '!=', '');
    if (req.query.main_category) q = q.where('main_category', '=', req.query.main_category);
    const rows = await q.orderBy('category').execute();
    return ok({ items: rows.map((r) => r.category) });
  });

  app.post('/api/sites/:id', { config: { access: 'user' }, schema: { params: IdParams, body: UpdateSiteBody } }, async (req) => {
    const category = req.body.category.trim();
    const res = await db.updateTable('sites').set({ category, update_ts: Date.now() }).where('id', '=', req.params.id).executeTakeFirst();
    if (!Number(res.numUpdatedRows)) throw notFound('site');
    const row = await db.selectFrom('sites').selectAll().where('id', '=', req.params.id).executeTakeFirstOrThrow();
    return ok(presentSite(row));
  });

  // All-or-nothing: the whole file is validated first, then written in one transaction (upsert by domain).
  app.post('/api/sites/import', { config: { access: 'admin' } }, async (req) => {
    const { file } = await readForm(req, { fileField: 'file', maxFileBytes: MAX_CSV_BYTES, tooLarge: `the CSV is larger than ${MAX_CSV_BYTES / 1024 / 1024} MB` });
    if (!file) throw badRequest('no file in the upload: send the CSV in the form field "file"');
    const { rows, errors } = validateSitesCsv(file.data.toString('utf8'));
    if (errors.length) throw badRequest(`the CSV was not imported: ${errors.join(' | ')}`);
    const now = Date.now();
    const result: SiteImportResult = await db.transaction().execute(async (trx) => {
      const existing = new Set<string>();
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const domains = rows.slice(i, i + INSERT_CHUNK).map((r) => r.domain);
        for (const r of await trx.selectFrom('sites').select('domain').where('domain', 'in', domains).execute()) existing.add(r.domain);
      }
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const chunk = rows.slice(i, i + INSERT_CHUNK).map((r) => ({ id: newId(now), ...r, create_ts: now, update_ts: now }));
        await trx
          .insertInto('sites')
          .values(chunk)
          .onConflict((oc) =>
            oc.column('domain').doUpdateSet((eb) => ({
              main_category: eb.ref('excluded.main_category'),
              category: eb.ref('excluded.category'),
              rank: eb.ref('excluded.rank'),
              name: eb.ref('excluded.name'),
              description: eb.ref('excluded.description'),
              update_ts: eb.ref('excluded.update_ts'),
            })),
          )
          .execute();
      }
      return { imported: rows.length, created: rows.length - existing.size, updated: existing.size };
    });
    return ok(result);
  });

  // ---- collected URLs ----

  app.get('/api/queryUrl', { config: { access: 'user' }, schema: { querystring: QueryUrlQuery } }, async (req, reply) => {
    const { limit, offset } = paging({ page_num: req.query.page, page_size: req.query.limited }, 10);
    let q = db.selectFrom('collected_urls');
    if (req.query.regionCode) q = q.where('region_code', '=', req.query.regionCode.toUpperCase());
    const [rows, count] = await Promise.all([
      q.selectAll().orderBy('create_ts', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const total = Number(count.n);
    return reply.send({ ...ok(rows.map(presentUrl), total), totalCount: total });
  });

  function checkUrl(url: string, regionCode: string): void {
    if (!isValidHttpUrl(url)) throw badRequest('url must be an http:// or https:// URL');
    if (!isValidRegionCode(regionCode)) throw badRequest('regionCode must be a 2–3 letter or 3 digit region code such as US, CN or 419');
  }

  app.post('/api/insertUrl', { config: { access: 'user' }, schema: { body: InsertUrlBody } }, async (req) => {
    const url = req.body.url.trim();
    const region = req.body.regionCode.trim().toUpperCase();
    checkUrl(url, region);
    const now = Date.now();
    const row = { id: newId(now), url, region_code: region, title: req.body.title?.trim() ?? '', create_ts: now, update_ts: now };
    await db.insertInto('collected_urls').values(row).execute();
    return ok(presentUrl(row));
  });

  app.post('/api/updateUrl', { config: { access: 'user' }, schema: { body: UpdateUrlBody } }, async (req) => {
    const cur = await db.selectFrom('collected_urls').selectAll().where('id', '=', req.body.id).executeTakeFirst();
    if (!cur) throw notFound('collected URL');
    const url = req.body.url?.trim() ?? cur.url;
    const region = req.body.regionCode?.trim().toUpperCase() ?? cur.region_code;
    checkUrl(url, region);
    const patch = { url, region_code: region, title: req.body.title?.trim() ?? cur.title, update_ts: Date.now() };
    await db.updateTable('collected_urls').set(patch).where('id', '=', cur.id).execute();
    return ok(presentUrl({ ...cur, ...patch }));
  });

  app.get('/api/deleteUrl', { config: { access: 'user' }, schema: { querystring: DeleteUrlQuery } }, async (req) => {
    const res = await db.deleteFrom('collected_urls').where('id', '=', req.query.id).executeTakeFirst();
    if (!Number(res.numDeletedRows)) throw notFound('collected URL');
    return ok(null);
  });
};
