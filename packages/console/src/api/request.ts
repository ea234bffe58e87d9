/**
 * The console's request helper: API root (VITE_API_BASE or /api), token header, 15 s timeout, JSON envelope,
 * an error toast for every failed response in the user's language, a no-response toast, and the single 401
 * re-login dialog (with no toasts behind it).
 */
import { QueryClient } from '@tanstack/react-query';
import type { ApiOk } from '@crawldeck/shared';
import { ERROR_TOAST_MS, REQUEST_TIMEOUT_MS } from '@crawldeck/shared/core';
import i18n from '../locales/index.ts';
import { toasts } from './toasts.ts';
import { serverErrorText, type ApiErrorBody } from './serverError.ts';
import { sessionDialogOpen, showSessionExpired } from './sessionExpired.ts';

export const API_BASE: string = (import.meta.env.VITE_API_BASE as string | undefined) ?? '/api';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
export type QueryParams = Record<string, unknown>;

export interface RequestOptions {
  method?: Method;
  /** Query-string parameters (objects are JSON-encoded). */
  params?: QueryParams;
  /** JSON body. */
  data?: unknown;
  /** Suppress the generic error toast (the caller shows its own message). 401 handling still applies. */
  silent?: boolean;
  /** Response type; 'blob' returns the body as a File named by the server's Content-Disposition (downloads). */
  responseType?: 'json' | 'blob';
  timeout?: number;
  signal?: AbortSignal;
}

/** Raised for every failed call: HTTP error, envelope status 'error', timeout or no response. */
export class ApiRequestError extends Error {
  constructor(
    /** HTTP status, 0 when no response arrived. */
    readonly status: number,
    readonly url: string,
    /** The reason in the user's language (by the envelope's `code`), else the server's `error`/`message`, or '' */
    readonly errorText: string,
    readonly body?: ApiErrorBody,
  ) {
    super(status ? `Request Error ${status}: ${url}. ${errorText}` : 'No response from the server');
    this.name = 'ApiRequestError';
  }

  /** The server's stable error code (e.g. 'user.exists'), when it sent one. */
  get code(): string | undefined {
    return this.body?.code;
  }
}

/** The reason a call failed, for a screen that shows it in place: the translated server text, else the error. */
export function failureText(err: unknown): string {
  if (err instanceof ApiRequestError) return err.errorText || err.message;
  return err instanceof Error ? err.message : String(err);
}

export function getToken(): string | null {
  return localStorage.getItem('token');
}

function buildUrl(path: string, params?: QueryParams): string {
  const base = API_BASE.replace(/\/+$/, '');
  let url = /^https?:\/\//.test(path) ? path : `${base}${path.startsWith('/') ? '' : '/'}${path}`;
  if (params) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined || v === null) continue;
      qs.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    const s = qs.toString();
    if (s) url += (url.includes('?') ? '&' : '?') + s;
  }
  return url;
}

/** The file name a download is to be saved under (Content-Disposition, its UTF-8 form first), or ''. */
export function attachmentName(disposition: string | null): string {
  if (!disposition) return '';
  const utf8 = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (utf8) {
    try {
      return decodeURIComponent(utf8[1].trim());
    } catch {
      // a malformed encoding: fall back to the plain name
    }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(disposition)?.[1] ?? /filename\s*=\s*([^;\s]+)/i.exec(disposition)?.[1] ?? '';
}

function showNoResponse(): void {
  if (sessionDialogOpen()) return;
  void toasts().error({
    content: i18n.t('common:request.noResponse'),
    duration: ERROR_TOAST_MS / 1000,
    key: 'no-response',
  });
}

/**
 * The toast of a failed call: the server's reason alone when it refused the request with one (a 4xx the user can
 * act on), else the catalogue's 'Request Error {status}: {url}. {text}'.
 */
export function failureToastText(status: number, url: string, text: string): string {
  if (status >= 400 && status < 500 && text) return text;
  return `${i18n.t('common:request.requestError')} ${status}: ${url}. ${text}`.trim();
}

/**
 * Tells the user a call failed: a 401 to a signed-in user opens the re-login dialog (and no toast), any other
 * failure shows a toast unless the caller shows its own message or the re-login dialog is already open. The toast
 * is keyed by its text, so the same failure reported again (a query's retry, two screens asking for the same
 * thing) replaces its toast instead of stacking a copy.
 */
export function reportFailure(status: number, url: string, text: string, silent: boolean): void {
  if (status === 401 && showSessionExpired()) return;
  if (silent || sessionDialogOpen()) return;
  const content = failureToastText(status, url, text);
  void toasts().error({ content, duration: ERROR_TOAST_MS / 1000, key: `failure:${content}` });
}

export async function request<T = unknown>(path: string, options: RequestOptions = {}): Promise<ApiOk<T>> {
  const { method = 'GET', params, data, silent = false, responseType = 'json', timeout = REQUEST_TIMEOUT_MS } = options;
  const url = buildUrl(path, params);
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = token;
  let body: BodyInit | undefined;
  if (data !== undefined) {
    if (data instanceof FormData || data instanceof Blob) body = data;
    else {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(data);
    }
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  options.signal?.addEventListener('abort', () => controller.abort());
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body, signal: controller.signal });
  } catch (err) {
    clearTimeout(timer);
    if (!silent && !options.signal?.aborted) showNoResponse();
    throw new ApiRequestError(0, url, err instanceof Error ? err.message : String(err));
  }
  clearTimeout(timer);

  let payload: unknown = undefined;
  if (responseType === 'blob' && res.ok) {
    const blob = await res.blob();
    const file = new File([blob], attachmentName(res.headers.get('content-disposition')), { type: blob.type });
    return { status: 'ok', message: 'success', data: file as T };
  }
  const text = await res.text().catch(() => '');
  try {
    payload = text ? JSON.parse(text) : undefined;
  } catch {
    payload = undefined;
  }
  const envelope = payload as Partial<ApiOk<T>> & Partial<ApiErrorBody>;
  if (!res.ok || envelope?.status === 'error') {
    const status = res.ok ? 400 : res.status;
    const errorText = serverErrorText(envelope, res.statusText ?? '');
    const shownUrl = url.replace(/\?.*$/, '');
    reportFailure(status, shownUrl, errorText, silent);
    throw new ApiRequestError(
      status,
      shownUrl,
      errorText,
      envelope?.status === 'error' ? (envelope as ApiErrorBody) : undefined,
    );
  }
  return (envelope ?? { status: 'ok', message: 'success', data: undefined }) as ApiOk<T>;
}

export function get<T = unknown>(
  path: string,
  params?: QueryParams,
  options: Omit<RequestOptions, 'method' | 'params'> = {},
) {
  return request<T>(path, { ...options, method: 'GET', params });
}
export function post<T = unknown>(path: string, data?: unknown, options: Omit<RequestOptions, 'method' | 'data'> = {}) {
  return request<T>(path, { ...options, method: 'POST', data });
}
export function put<T = unknown>(path: string, data?: unknown, options: Omit<RequestOptions, 'method' | 'data'> = {}) {
  return request<T>(path, { ...options, method: 'PUT', data });
}
/** DELETE with `data` sent as JSON body. */
export function del<T = unknown>(path: string, data?: unknown, options: Omit<RequestOptions, 'method' | 'data'> = {}) {
  return request<T>(path, { ...options, method: 'DELETE', data });
}

export const api = { request, get, post, put, delete: del };

/** Shared TanStack Query client: no retry on 4xx, no refetch storms on focus. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, err) => !(err instanceof ApiRequestError && err.status >= 400 && err.status < 500) && count < 1,
      refetchOnWindowFocus: false,
      staleTime: 10_000,
    },
    mutations: { retry: false },
  },
});
