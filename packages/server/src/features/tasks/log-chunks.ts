import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../context.ts';
import { chunkIndexExists, CHUNK_LINES, indexNextChunks, type IndexRound } from './log-chunks.store.ts';

/** A round should take about this long in the database. */
const ROUND_MS = 40;
const ROUND_LINES = { min: CHUNK_LINES, start: 16 * CHUNK_LINES, max: 512 * CHUNK_LINES };
/**
 * After a round the indexer rests as long as the round took: background work, it takes at most half of one
 * database connection's time, and the ingest and the searches keep the rest.
 */
const REST_SHARE = 1;

/**
 * Starts the background indexer of long task logs on PostgreSQL: rounds of whole chunks of lines, sized to take
 * about ROUND_MS each, with a rest after each, until no task is behind; then it looks again after the idle pause.
 * Its progress is stored with the chunks, so a restart goes on where it stopped; with several masters one indexes
 * at a time (the others find the lock taken and wait for the idle pause). Closing the master waits for the round.
 * A store without the trigram index is left alone.
 */
export function startLogChunkIndexer(ctx: AppContext): void {
  const idleMs = ctx.config.logIndexIdleMs;
  if (ctx.store.engine !== 'postgres' || idleMs <= 0) return;
  const stop = new AbortController();
  let lines = ROUND_LINES.start;
  const pause = (ms: number) => sleep(ms, undefined, { signal: stop.signal }).catch(() => undefined);
  const round = async (): Promise<IndexRound> => {
    const t0 = performance.now();
    const done = await indexNextChunks(ctx.store.db, lines);
    const ms = performance.now() - t0;
    if (done.kind === 'indexed' && done.lines >= lines) {
      const sized = Math.round((lines * ROUND_MS) / Math.max(ms, 1));
      lines = Math.min(ROUND_LINES.max, Math.max(ROUND_LINES.min, sized));
    }
    if (done.kind === 'indexed' || done.kind === 'caught-up') await pause(ms * REST_SHARE);
    return done;
  };
  const loop = async () => {
    // A store without the trigram index (PostgreSQL without pg_trgm) has nothing to fill.
    if (!(await chunkIndexExists(ctx.store.db).catch(() => false))) return;
    while (!stop.signal.aborted) {
      let worked = false;
      try {
        const done = await round();
        worked = done.kind === 'indexed' || done.kind === 'caught-up';
      } catch (err) {
        if (!stop.signal.aborted) ctx.log.warn({ err }, 'log chunk indexer: a round failed, it is tried again');
      }
      if (!worked) await pause(idleMs);
    }
  };
  const running = loop();
  ctx.onClose(async () => {
    stop.abort();
    await running;
  });
}
