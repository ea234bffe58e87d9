import { HomeStats, HomeStatsQuery, okResponse } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { homeStats } from './stats.service.ts';

/** Dashboard numbers in one call. */
export const statsFeature: Feature = (app, ctx) => {
  app.get(
    '/api/stats/home',
    { config: { access: 'user' }, schema: { querystring: HomeStatsQuery, response: okResponse(HomeStats) } },
    async (req) => ok(await homeStats(ctx.store, req.query.tz_offset ?? 0)),
  );
};
