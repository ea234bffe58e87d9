/** Appends one item (a plain object) to the task's items. */
export function saveItem(item: Record<string, unknown>): void;
/** Appends several items with one write. */
export function saveItems(items: Iterable<Record<string, unknown>>): void;
/** The current task id ('' outside a task). */
export function taskId(): string;
