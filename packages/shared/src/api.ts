/**
 * The HTTP envelope every /api call answers with (ARCHITECTURE.md "API conventions").
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
  /** Human-readable reason the console shows in its toast. */
  error: string;
}

export type ApiResponse<T> = ApiOk<T> | ApiError;

/** Standard list query of spec §7: 1-based page number and page size. */
export interface PageQuery {
  page_num?: number;
  page_size?: number;
}

export type Role = 'normal' | 'admin';
