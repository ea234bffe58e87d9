/**
 * The largest item a task stores: the master's CRAWLDECK_MAX_ITEM_MB, or less when the task's data source takes
 * only shorter statements (MariaDB and MySQL refuse one over max_allowed_packet and close the connection). The
 * limit goes with the task to its node, which refuses a larger item where the operator sees it, in the task's log.
 */
import type { ItemSizeLimit } from '@crawldeck/shared';
import type { CoreContext } from '../../context.ts';
import { recordTaskTarget } from './ingest.service.ts';
import { writerCache } from './writers.ts';
import type { TargetWriter } from './target.ts';

/** Room in a statement for what surrounds an item's values: the INSERT, the column names, our own columns. */
const STATEMENT_ROOM = 64 * 1024;
/** The smallest limit a data source can impose (a tiny max_allowed_packet). */
const LEAST_ITEM_BYTES = 1024;
/** How long the data source may take to tell its statement limit before the task goes without it. */
const ASK_TIMEOUT_MS = 2000;
/** A data source that did not tell its limit is not asked again for this long: it delays no further task. */
const ASK_AGAIN_MS = 60_000;
const MIB = 1024 * 1024;

/** Writers that did not tell their limit lately, with the time they may be asked again. */
const unanswered = new WeakMap<TargetWriter, number>();

/** The writer's longest statement (undefined: no limit), or 'late' when it does not answer in time. */
function askInTime(writer: TargetWriter): Promise<number | undefined | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ASK_TIMEOUT_MS);
  });
  const ask = writer.maxStatementBytes().catch(() => 'late' as const);
  return Promise.race([ask, late]).finally(() => clearTimeout(timer));
}

export async function itemLimitFor(ctx: CoreContext, taskId: string): Promise<ItemSizeLimit> {
  const own = { bytes: ctx.config.maxItemBytes, source: 'CRAWLDECK_MAX_ITEM_MB on the master' };
  let name = '';
  try {
    const target = await recordTaskTarget(ctx, taskId);
    if (!target?.data_source_id) return own;
    const open = await writerCache(ctx).get(target.data_source_id);
    name = open.row.name;
    if ((unanswered.get(open.writer) ?? 0) > Date.now()) return own;
    const packet = await askInTime(open.writer);
    if (packet === 'late') {
      // Out of reach: its writes fail and are sent again as ever, and the master's own limit holds for this task.
      unanswered.set(open.writer, Date.now() + ASK_AGAIN_MS);
      ctx.log.warn({ taskId, dataSource: name }, 'the data source did not tell its statement limit');
      return own;
    }
    // In a statement an item's text may double: every quote and backslash in it is escaped.
    const fits =
      packet === undefined ? own.bytes : Math.max(LEAST_ITEM_BYTES, Math.floor((packet - STATEMENT_ROOM) / 2));
    if (packet === undefined || fits >= own.bytes) return own;
    const packetMb = (packet / MIB).toFixed(1);
    return {
      bytes: fits,
      source: `max_allowed_packet (${packetMb} MiB) of data source "${name}", which holds an item of at most half that`,
    };
  } catch (err) {
    ctx.log.warn({ err, taskId, dataSource: name }, 'the item limit of the task data source could not be read');
    return own;
  }
}
