import { Type } from '@sinclair/typebox';
import {
  CONFIG_SPIDER_CMD,
  CONFIG_SPIDER_TEMPLATES,
  ConfigSpiderTemplateOut,
  ConvertedSpider,
  CreateConfigSpiderBody,
  ExtractFieldsBody,
  ExtractFieldsOut,
  PreviewResult,
  SavedSpiderfile,
  SpiderOut,
  okResponse,
  PreviewBody,
  SpiderfileSchema,
  SpiderfileTextBody,
  parseSpiderfile,
  validateSpiderfile,
  scrapyCrawlCommand,
  type Spiderfile,
} from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { HttpError, badRequest } from '../../http/errors.ts';
import { createSpider, parseWith, spiderFor } from '../spiders/spiders.service.ts';
import { getSpider, getSpiderWithOwner, presentSpider, type SpiderRow } from '../spiders/spiders.store.ts';
import { writeFile } from '../spiders/files.store.ts';
import {
  invalidSpiderfile,
  loadSpiderfile,
  preview,
  previewBudget,
  saveSpiderfile,
  suggestFields,
} from './config-spider.service.ts';
import { markConvertedToScrapy } from './config-spider.store.ts';
import { pythonSettingsOf } from '../scrapy/scrapy.service.ts';
import { outboundPolicy } from '../../outbound/policy.ts';
import { pythonSyntaxError, scrapyProjectFor } from './convert.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });

/** Configurable spiders: Spiderfile form/text, templates, preview, field suggestion, conversion to Scrapy. */
export const configSpiderFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;
  const user = { access: 'user' as const };
  const budget = previewBudget(ctx.config);
  const py = pythonSettingsOf(ctx.config);

  const configurable = async (row: SpiderRow) => {
    if (row.type !== 'configurable') throw badRequest('this is not a configurable spider');
    return row;
  };

  app.get(
    '/api/config_spiders_templates',
    { config: user, schema: { response: okResponse(Type.Array(ConfigSpiderTemplateOut)) } },
    async () => ok(CONFIG_SPIDER_TEMPLATES),
  );

  app.put(
    '/api/config_spiders',
    { config: user, schema: { body: CreateConfigSpiderBody, response: okResponse(SpiderOut) } },
    async (req) => {
      const b = req.body;
      const template = CONFIG_SPIDER_TEMPLATES.find((t) => t.name === (b.template || 'list'));
      if (!template)
        throw badRequest(
          `unknown template "${b.template}" (templates: ${CONFIG_SPIDER_TEMPLATES.map((t) => t.name).join(', ')})`,
        );
      const sf: Spiderfile = structuredClone(template.spiderfile);
      sf.name = b.name.trim();
      if (b.display_name) sf.display_name = b.display_name;
      if (b.col) sf.col = b.col;
      if (b.start_url) sf.start_url = b.start_url.trim();
      const checked = validateSpiderfile(sf);
      if (!checked.ok) throw invalidSpiderfile(checked.problems);
      const { id } = await createSpider(ctx, req.user, {
        name: sf.name,
        display_name: b.display_name,
        col: b.col,
        type: 'configurable',
        cmd: CONFIG_SPIDER_CMD,
        project_id: b.project_id,
        is_public: b.is_public,
      });
      await saveSpiderfile(db, (await getSpider(db, id))!, checked.spiderfile);
      return ok(presentSpider((await getSpiderWithOwner(db, id))!));
    },
  );

  app.post(
    '/api/config_spiders/:id/config',
    { config: user, schema: { params: IdParams, body: SpiderfileSchema, response: okResponse(SavedSpiderfile) } },
    async (req) => {
      const row = await configurable(await spiderFor(db, req.user, req.params.id, 'write'));
      const checked = validateSpiderfile({ ...req.body, name: req.body.name || row.name });
      if (!checked.ok) throw invalidSpiderfile(checked.problems);
      return ok(await saveSpiderfile(db, row, checked.spiderfile));
    },
  );

  app.post(
    '/api/config_spiders/:id/spiderfile',
    { config: user, schema: { params: IdParams, body: SpiderfileTextBody, response: okResponse(SavedSpiderfile) } },
    async (req) => {
      const row = await configurable(await spiderFor(db, req.user, req.params.id, 'write'));
      const parsed = parseSpiderfile(req.body.content);
      if (!parsed.ok) throw invalidSpiderfile(parsed.problems);
      // the text is kept as written (comments, order); the config column gets the parsed object
      return ok(await saveSpiderfile(db, row, parsed.spiderfile, req.body.content));
    },
  );

  app.post(
    '/api/spiders/:id/preview_crawl',
    { config: user, schema: { params: IdParams, response: okResponse(PreviewResult) } },
    async (req) => {
      const body = parseWith(PreviewBody, req.body ?? {});
      const row = await configurable(await spiderFor(db, req.user, req.params.id, 'read'));
      let sf: Spiderfile;
      if (body.spiderfile !== undefined) {
        const checked = validateSpiderfile({ name: row.name, ...(body.spiderfile as object) });
        if (!checked.ok) throw invalidSpiderfile(checked.problems);
        sf = checked.spiderfile;
      } else {
        sf = await loadSpiderfile(db, row);
      }
      const { rows, stats, log } = await preview(
        sf,
        body.items ?? 10,
        await outboundPolicy(db, ctx.config.outboundAllow),
        budget,
      );
      return ok({ rows, stats, log }, rows.length);
    },
  );

  app.post(
    '/api/spiders/:id/extract_fields',
    { config: user, schema: { params: IdParams, response: okResponse(ExtractFieldsOut) } },
    async (req) => {
      const body = parseWith(ExtractFieldsBody, req.body ?? {});
      const row = await configurable(await spiderFor(db, req.user, req.params.id, 'read'));
      const sf = await loadSpiderfile(db, row);
      return ok(await suggestFields(sf, body.url, await outboundPolicy(db, ctx.config.outboundAllow), budget));
    },
  );

  app.post(
    '/api/config_spiders/:id/convert',
    { config: user, schema: { params: IdParams, response: okResponse(ConvertedSpider) } },
    async (req) => {
      const row = await configurable(await spiderFor(db, req.user, req.params.id, 'write'));
      try {
        const sf = await loadSpiderfile(db, row);
        const { files, spiderName } = scrapyProjectFor(sf);
        for (const f of files) {
          if (f.path.endsWith('.py')) {
            const problem = pythonSyntaxError(f.content, py);
            if (problem) throw new Error(`${f.path}: ${problem}`);
          }
        }
        for (const f of files) await writeFile(db, row.id, f.path, Buffer.from(f.content, 'utf8'));
        await markConvertedToScrapy(db, row.id, scrapyCrawlCommand(spiderName));
        return ok({ ...presentSpider((await getSpiderWithOwner(db, row.id))!), files: files.map((f) => f.path) });
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new HttpError(422, `Converted unsuccessfully: ${reason}`);
      }
    },
  );
};
