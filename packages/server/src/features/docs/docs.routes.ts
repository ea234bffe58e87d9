import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { Feature } from '../../context.ts';
import { notFound } from '../../http/errors.ts';
import { DocsSite, chooseLang } from './docs.service.ts';

/** Where the guide is served; the links of GET /api/docs point here unless CRAWLDECK_DOCS_URL names another site. */
export const DOCS_PREFIX = '/docs';

const CSS = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'docs.css'), 'utf8');
const LangQuery = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 8 })) });
// Pages are HTML, not API answers: kept out of the OpenAPI document like the console's own files.
const htmlSchema = { hide: true, querystring: LangQuery, response: { 200: Type.String() } };

/** The user guide: public pages (they hold no data), in English and Chinese. */
export const docsFeature: Feature = (app) => {
  const site = new DocsSite(DOCS_PREFIX);
  {
    app.get(
      `${DOCS_PREFIX}/docs.css`,
      { config: { access: 'public' }, schema: { hide: true, response: { 200: Type.String() } } },
      async (_req, reply) =>
        reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CSS),
    );
    app.get(DOCS_PREFIX, { config: { access: 'public' }, schema: { hide: true } }, async (_req, reply) =>
      reply.redirect(`${DOCS_PREFIX}/`),
    );
    app.get<{ Params: { '*': string }; Querystring: { lang?: string } }>(
      `${DOCS_PREFIX}/*`,
      { config: { access: 'public' }, schema: htmlSchema },
      async (req, reply) => {
        const key = `/${req.params['*']}`;
        const html = site.page(key, chooseLang(req.query.lang, req.headers['accept-language']));
        if (!html) throw notFound(`documentation page ${key}`);
        return reply
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-cache')
          .header('vary', 'accept-language')
          .send(html);
      },
    );
  }
};
