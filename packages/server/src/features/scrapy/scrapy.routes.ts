import { Type } from '@sinclair/typebox';
import {
  ScrapyFilepathQuery,
  ScrapyItemsBody,
  ScrapyPipelinesBody,
  ScrapySettingsBody,
  ScrapySpiderForm,
  coerceScrapySetting,
  okResponse,
  ScrapyItem,
  ScrapyPipeline,
  ScrapySetting,
  ScrapySpiderCreated,
} from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';
import { spiderFor } from '../spiders/spiders.service.ts';
import { EnvironmentsService } from '../environments/environments.service.ts';
import { pythonSettingsOf, scrapyCall } from './scrapy.service.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });

/** Scrapy project calls; a project that cannot be read or written answers 422 with Python's reason. */
export const scrapyFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const environments = new EnvironmentsService(ctx);
  const py = pythonSettingsOf(ctx.config, () => environments.settings());

  app.get(
    '/api/spiders/:id/scrapy/spiders',
    { config: { access: 'user' }, schema: { params: IdParams, response: okResponse(Type.Array(Type.String())) } },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await scrapyCall<string[]>(db, py, req.params.id, 'list'));
    },
  );

  app.put(
    '/api/spiders/:id/scrapy/spiders',
    {
      config: { access: 'user' },
      schema: { params: IdParams, body: ScrapySpiderForm, response: okResponse(ScrapySpiderCreated) },
    },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'write');
      return ok(await scrapyCall<ScrapySpiderCreated>(db, py, req.params.id, 'genspider', req.body, true));
    },
  );

  app.get(
    '/api/spiders/:id/scrapy/spider/filepath',
    {
      config: { access: 'user' },
      schema: { params: IdParams, querystring: ScrapyFilepathQuery, response: okResponse(Type.String()) },
    },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await scrapyCall<string>(db, py, req.params.id, 'filepath', { spider_name: req.query.spider_name }));
    },
  );

  app.get(
    '/api/spiders/:id/scrapy/settings',
    { config: { access: 'user' }, schema: { params: IdParams, response: okResponse(Type.Array(ScrapySetting)) } },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await scrapyCall<ScrapySetting[]>(db, py, req.params.id, 'settings'));
    },
  );

  app.post(
    '/api/spiders/:id/scrapy/settings',
    {
      config: { access: 'user' },
      schema: { params: IdParams, body: ScrapySettingsBody, response: okResponse(Type.Array(ScrapySetting)) },
    },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'write');
      const list = req.body as ScrapySetting[];
      const seen = new Set<string>();
      const settings = list.map((s) => {
        if (seen.has(s.key)) throw badRequest(`setting ${s.key} is given twice`);
        seen.add(s.key);
        if (s.expression) {
          if (typeof s.value !== 'string')
            throw badRequest(`setting ${s.key}: an expression must be given as its source text`);
          return s;
        }
        try {
          return { key: s.key, type: s.type, value: coerceScrapySetting(s.key, s.type, s.value) };
        } catch (err) {
          throw badRequest((err as Error).message);
        }
      });
      return ok(await scrapyCall<ScrapySetting[]>(db, py, req.params.id, 'set-settings', settings, true));
    },
  );

  app.get(
    '/api/spiders/:id/scrapy/items',
    { config: { access: 'user' }, schema: { params: IdParams, response: okResponse(Type.Array(ScrapyItem)) } },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await scrapyCall<ScrapyItem[]>(db, py, req.params.id, 'items'));
    },
  );

  app.post(
    '/api/spiders/:id/scrapy/items',
    {
      config: { access: 'user' },
      schema: { params: IdParams, body: ScrapyItemsBody, response: okResponse(Type.Array(ScrapyItem)) },
    },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'write');
      const items = req.body;
      const names = new Set<string>();
      for (const it of items) {
        if (names.has(it.name)) throw badRequest(`item ${it.name} is given twice`);
        names.add(it.name);
        if (new Set(it.fields).size !== it.fields.length) throw badRequest(`item ${it.name} has a field twice`);
      }
      return ok(await scrapyCall<ScrapyItem[]>(db, py, req.params.id, 'set-items', items, true));
    },
  );

  app.get(
    '/api/spiders/:id/scrapy/pipelines',
    { config: { access: 'user' }, schema: { params: IdParams, response: okResponse(Type.Array(ScrapyPipeline)) } },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await scrapyCall<ScrapyPipeline[]>(db, py, req.params.id, 'pipelines'));
    },
  );

  app.post(
    '/api/spiders/:id/scrapy/pipelines',
    {
      config: { access: 'user' },
      schema: { params: IdParams, body: ScrapyPipelinesBody, response: okResponse(Type.Array(ScrapyPipeline)) },
    },
    async (req) => {
      await spiderFor(db, req.user, req.params.id, 'write');
      const list = req.body;
      return ok(await scrapyCall<ScrapyPipeline[]>(db, py, req.params.id, 'set-pipelines', list, true));
    },
  );
};
