import { Type } from '@sinclair/typebox';
import type { Feature } from '../../context.ts';
import { MasterMetrics } from './metrics.service.ts';

/**
 * GET /metrics in the Prometheus text format, for administrators' API tokens (Prometheus sends one as
 * `Authorization: Bearer <token>`). Not under /api: it is a scrape target, not part of the JSON API.
 */
export const metricsFeature: Feature = (app, ctx) => {
  const metrics = new MasterMetrics(ctx);

  ctx.events.on('task.log', (ev) => {
    metrics.logLines.inc(ev.lines.length);
    const errors = ev.lines.filter((l) => l.is_error).length;
    if (errors) metrics.errorLines.inc(errors);
  });
  ctx.events.on('task.items', (ev) => metrics.items.inc(ev.stored));
  ctx.events.on('task.status', (ev) => {
    if (ev.status === 'running' && !ev.repeat)
      void metrics
        .observeStart(ev.taskId)
        .catch((err: Error) => ctx.log.debug({ err: err.message }, 'metrics: queue wait not read'));
  });

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.httpSeconds.observe(
      { method: req.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  app.get(
    '/metrics',
    {
      config: { access: 'admin' },
      schema: { summary: 'Prometheus metrics of this master', response: { 200: Type.String() } },
    },
    async (_req, reply) => reply.type(metrics.contentType).send(await metrics.scrape()),
  );
};
