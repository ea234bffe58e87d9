import { HomeStatsQuery } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { homeStats } from './stats.service.ts';

/** Dashboard numbers (spec §1, §2 /home) in one call. */
export const statsFeature: Feature = (app, ctx) => {
  app.get('/api/stats/home', { config: { access: 'user' }, schema: { querystring: HomeStatsQuery } }, async (req) => ok(await homeStats(ctx.store, req.query.tz_offset ?? 0)));
};
