/**
 * The largest item a task stores. An item's line in the items file up to the limit is shipped whole; a longer one
 * is refused: an error line in the task's log names its size, the limit and what sets it, and the task's final
 * report counts the refused items. Each item is refused once, also when the node reads it again after a failure
 * or a restart.
 */
import { DEFAULT_MAX_ITEM_BYTES, type ItemSizeLimit } from '@crawldeck/shared';
import type { RefusedItems } from './run-folders.ts';
import type { LineRule } from './shipper.ts';

const MIB = 1024 * 1024;

/** The limit the master gave with the task, or the default of a master that gives none. */
export function itemLimitOf(given: ItemSizeLimit | undefined): ItemSizeLimit {
  return given && given.bytes > 0 ? given : { bytes: DEFAULT_MAX_ITEM_BYTES, source: "the node's default" };
}

/** A size as a person reads it: MiB with one decimal from 1 MiB on, KiB below. */
export function sizeText(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

export class ItemLimit {
  readonly state: RefusedItems;

  constructor(
    readonly limit: ItemSizeLimit,
    saved: RefusedItems | undefined,
    private note: (line: string) => void,
    private save: () => void,
  ) {
    this.state = { ...(saved ?? { count: 0, largest: 0, next: 0 }) };
  }

  /** How the items' shipper treats a long line: whole up to the limit, refused beyond it. */
  rule(): LineRule {
    return { maxBytes: this.limit.bytes, refused: (line, bytes) => this.refused(line, bytes) };
  }

  /** Item `line` (0-based) of `bytes` bytes is over the limit: counted and told in the log, once. */
  refused(line: number, bytes: number): void {
    if (line < this.state.next) return;
    this.state.count++;
    this.state.largest = Math.max(this.state.largest, bytes);
    this.state.next = line + 1;
    // Saved before the line is written: a node killed in between leaves the line out rather than writing it twice.
    this.save();
    const { bytes: max, source } = this.limit;
    this.note(
      `ERROR: item ${line + 1} refused, not stored: its ${sizeText(bytes)} (${bytes} bytes) are over the item ` +
        `limit of ${sizeText(max)} (${max} bytes, set by ${source})`,
    );
  }

  /** The task's error for its refused items, or '' when none was refused. */
  summary(): string {
    const { count, largest } = this.state;
    if (!count) return '';
    const items = count === 1 ? '1 item was' : `${count} items were`;
    return `${items} refused for being over the item limit of ${sizeText(this.limit.bytes)} (largest ${sizeText(largest)})`;
  }

  /** The task's final error with its refused items told after whatever else it says (once). */
  withSummary(error: string): string {
    const refused = this.summary();
    if (!refused || error.includes(refused)) return error;
    return error ? `${error}; ${refused}` : refused;
  }
}
