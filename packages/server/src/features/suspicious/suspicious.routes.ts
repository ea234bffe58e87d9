import type { Feature } from '../../context.ts';
import { checkFinishedTask } from './suspicious.service.ts';

/** Marks finished tasks that printed error lines or stored nothing where earlier runs stored many (no routes). */
export const suspiciousFeature: Feature = (_app, ctx) => {
  ctx.events.on('task.status', (ev) => {
    if (ev.status !== 'finished' || ev.repeat) return;
    checkFinishedTask(ctx, ev.taskId).catch((err: Error) =>
      ctx.log.warn({ err: err.message, taskId: ev.taskId }, 'suspicious finish check failed'),
    );
  });
};
