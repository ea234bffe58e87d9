/** Per-browser preferences of Settings → General (local storage), readable by any list screen. */
export const PAGE_SIZE_KEY = 'pageSize';
export const PAGE_SIZE_OPTIONS = [10, 20, 50, 100] as const;

export function getDefaultPageSize(fallback = 10): number {
  const v = Number(localStorage.getItem(PAGE_SIZE_KEY));
  return (PAGE_SIZE_OPTIONS as readonly number[]).includes(v) ? v : fallback;
}

export function setDefaultPageSize(size: number): void {
  localStorage.setItem(PAGE_SIZE_KEY, String(size));
}
