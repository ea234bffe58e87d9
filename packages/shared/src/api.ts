/**
 * The HTTP envelope every /api call answers with: `data` (and a list's `total`) on success, an English `error`
 * with a stable `code` on failure, always with a real HTTP status.
 * Kept here so the server's presenters and the console's request helper cannot drift apart.
 */
export interface ApiOk<T> {
  status: 'ok';
  message: 'success';
  data: T;
  total?: number;
}

export interface ApiError {
  status: 'error';
  message: string;
  /** Human-readable reason in English; the console shows it when it has no text of its own for `code`. */
  error: string;
  /** Stable code of the error catalogue (errors.ts); the console translates `errors:<code>` with `params`. */
  code?: string;
  params?: Record<string, string | number>;
}

export type ApiResponse<T> = ApiOk<T> | ApiError;

/** The paging query every list accepts: 1-based page number and page size. */
export interface PageQuery {
  page_num?: number;
  page_size?: number;
}

export type Role = 'normal' | 'admin';
