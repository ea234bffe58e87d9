import type { ApiError, ApiOk } from '@crawldeck/shared';

/** Wraps a handler's result in the success envelope `{status: 'ok', message, data, total?}`. */
export function ok<T>(data: T, total?: number): ApiOk<T> {
  return total === undefined
    ? { status: 'ok', message: 'success', data }
    : { status: 'ok', message: 'success', data, total };
}

/** The error envelope: English `error` (and `message`), the catalogued `code` and its `params` when it has any. */
export function fail(error: string, coded?: { code: string; params?: Record<string, string | number> }): ApiError {
  const out: ApiError = { status: 'error', message: error, error };
  if (coded) out.code = coded.code;
  if (coded?.params) out.params = coded.params;
  return out;
}

/** Stored epoch ms → API ISO string (null stays null). */
export function iso(ts: number | null | undefined): string | null {
  return ts == null ? null : new Date(Number(ts)).toISOString();
}

/** Normalises the page_num/page_size pair of a list call into LIMIT/OFFSET. */
export function paging(
  q: { page_num?: number; page_size?: number },
  defaultSize = 10,
): { limit: number; offset: number } {
  const page = Math.max(1, Math.floor(q.page_num ?? 1));
  const size = Math.max(1, Math.floor(q.page_size ?? defaultSize));
  return { limit: size, offset: (page - 1) * size };
}
