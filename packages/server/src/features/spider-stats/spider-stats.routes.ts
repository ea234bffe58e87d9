import { SpiderStats, SpiderStatsQuery, okResponse } from '@crawldeck/shared';
import { LooseIdParams } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { spiderFor } from '../spiders/spiders.service.ts';
import { spiderStats } from './spider-stats.service.ts';

/** Same id rule as GET /api/spiders/:id, so an unknown id answers 404 there and here. */
const IdParams = LooseIdParams;

/** Spider Analytics tab: readable by whoever may read the spider. */
export const spiderStatsFeature: Feature = (app, ctx) => {
  const db = ctx.store.db;
  app.get(
    '/api/spiders/:id/stats',
    {
      config: { access: 'user' },
      schema: { params: IdParams, querystring: SpiderStatsQuery, response: okResponse(SpiderStats) },
    },
    async (req) => {
      const spider = await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await spiderStats(db, spider.id, req.query.days, req.query.tz_offset ?? 0));
    },
  );
};
