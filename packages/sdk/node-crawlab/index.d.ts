/** Appends one item (a plain object) to the task's items. */
export function saveItem(item: Record<string, unknown>): Promise<void>;
/** Appends several items with one write. */
export function saveItems(items: Iterable<Record<string, unknown>>): Promise<void>;
/** Resolves at once: items are written as they are saved. */
export function close(): Promise<void>;
/** The current task id ('' outside a task). */
export function getTaskId(): string;
