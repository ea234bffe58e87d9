import {
  IdParams,
  LooseIdParams,
  SpiderScrapyRunsQuery,
  SpiderScrapyRunsResponse,
  TaskScrapyStatsResponse,
} from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { taskFor } from '../../policies/index.ts';
import { spiderFor } from '../spiders/spiders.service.ts';
import { ScrapyStatsReader, spiderScrapyRuns, taskScrapyStats } from './scrapy-stats.service.ts';

const FINAL_STATUSES = new Set(['finished', 'error', 'cancelled', 'abnormal']);

/**
 * Scrapy run statistics: read from each task's log as its lines are stored, shown on the task's Stats tab and the
 * spider's Analytics tab. Readable by whoever may read the task (or the spider).
 */
export const scrapyStatsFeature: Feature = (app, ctx) => {
  const db = ctx.store.db;
  const reader = new ScrapyStatsReader(ctx);
  ctx.events.on('task.log', (ev) => void reader.catchUp(ev.taskId));
  ctx.events.on('task.status', (ev) => {
    if (FINAL_STATUSES.has(ev.status)) void reader.catchUp(ev.taskId);
  });

  app.get(
    '/api/tasks/:id/scrapy-stats',
    { config: { access: 'user' }, schema: { params: IdParams, response: { 200: TaskScrapyStatsResponse } } },
    async (req) => {
      const t = await taskFor(db, req.user, req.params.id);
      return ok(await taskScrapyStats(ctx, reader, t.id));
    },
  );

  app.get(
    '/api/spiders/:id/scrapy-runs',
    {
      config: { access: 'user' },
      schema: {
        params: LooseIdParams,
        querystring: SpiderScrapyRunsQuery,
        response: { 200: SpiderScrapyRunsResponse },
      },
    },
    async (req) => {
      const spider = await spiderFor(db, req.user, req.params.id, 'read');
      return ok(await spiderScrapyRuns(ctx, spider.id, req.query.limit ?? 30));
    },
  );
};
