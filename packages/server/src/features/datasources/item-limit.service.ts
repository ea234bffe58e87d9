/**
 * The largest item a task stores: the master's CRAWLDECK_MAX_ITEM_MB, or less when the task's data source takes
 * only shorter statements (MariaDB and MySQL refuse one over max_allowed_packet and close the connection). The
 * limit goes with the task to its node, which refuses a larger item where the operator sees it, in the task's log.
 */
import type { ItemSizeLimit } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { recordTaskTarget } from './ingest.service.ts';
import { writerCache } from './writers.ts';

/** Room in a statement for what surrounds an item's values: the INSERT, the column names, our own columns. */
const STATEMENT_ROOM = 64 * 1024;
/** The smallest limit a data source can impose (a tiny max_allowed_packet). */
const LEAST_ITEM_BYTES = 1024;
/** How long the data source may take to tell its statement limit before the task goes without it. */
const ASK_TIMEOUT_MS = 5000;
const MIB = 1024 * 1024;

/** The data source's longest statement, or undefined when it does not answer in time. */
function askInTime(ask: Promise<number | undefined>): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ASK_TIMEOUT_MS);
  });
  return Promise.race([ask, late]).finally(() => clearTimeout(timer));
}

export async function itemLimitFor(ctx: AppContext, taskId: string): Promise<ItemSizeLimit> {
  const own = { bytes: ctx.config.maxItemBytes, source: 'CRAWLDECK_MAX_ITEM_MB on the master' };
  try {
    const target = await recordTaskTarget(ctx, taskId);
    if (!target?.data_source_id) return own;
    const open = await writerCache(ctx).get(target.data_source_id);
    const packet = await askInTime(open.writer.maxStatementBytes());
    // In a statement an item's text may double: every quote and backslash in it is escaped.
    const fits =
      packet === undefined ? own.bytes : Math.max(LEAST_ITEM_BYTES, Math.floor((packet - STATEMENT_ROOM) / 2));
    if (packet === undefined || fits >= own.bytes) return own;
    const packetMb = (packet / MIB).toFixed(1);
    return {
      bytes: fits,
      source: `max_allowed_packet (${packetMb} MiB) of data source "${open.row.name}", which holds an item of at most half that`,
    };
  } catch (err) {
    // A data source out of reach: its writes fail and are sent again as ever; the master's own limit holds.
    ctx.log.warn({ err, taskId }, 'the item limit of the task data source could not be read');
    return own;
  }
}
