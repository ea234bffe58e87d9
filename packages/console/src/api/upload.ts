/**
 * Multipart upload with progress (XMLHttpRequest `upload.onprogress`; fetch cannot report upload progress).
 * The only hand-written call outside request.ts: same API root, token header, envelope, error toast and 401
 * handling as the request helper.
 */
import type { ApiOk } from '@crawldeck/shared';
import { ERROR_TOAST_MS } from '@crawldeck/shared/core';
import i18n from '../locales/index.ts';
import { toasts } from './toasts.ts';
import { API_BASE, ApiRequestError, getToken, reportFailure } from './request.ts';
import { serverErrorText, type ApiErrorBody } from './serverError.ts';
import { sessionDialogOpen } from './sessionExpired.ts';

export interface UploadOptions {
  method?: 'POST' | 'PUT';
  /** Called with 0..100 while the body is sent. */
  onProgress?: (percent: number) => void;
  /** Suppress the generic error toast (the caller shows its own message). */
  silent?: boolean;
  signal?: AbortSignal;
}

export function uploadWithProgress<T = unknown>(
  path: string,
  form: FormData,
  options: UploadOptions = {},
): Promise<ApiOk<T>> {
  const { method = 'POST', onProgress, silent = false, signal } = options;
  const url = `${API_BASE.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  return new Promise<ApiOk<T>>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.setRequestHeader('Accept', 'application/json');
    const token = getToken();
    if (token) xhr.setRequestHeader('Authorization', token);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && onProgress) onProgress(Math.min(100, Math.round((e.loaded / e.total) * 100)));
    };
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.onerror = () => {
      if (!silent && !sessionDialogOpen())
        void toasts().error({
          content: i18n.t('common:request.noResponse'),
          duration: ERROR_TOAST_MS / 1000,
          key: 'no-response',
        });
      reject(new ApiRequestError(0, url, 'network error'));
    };
    xhr.onabort = () => reject(new ApiRequestError(0, url, 'aborted'));
    xhr.onload = () => {
      let envelope: (Partial<ApiOk<T>> & Partial<ApiErrorBody>) | undefined;
      try {
        envelope = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        envelope = undefined;
      }
      const okStatus = xhr.status >= 200 && xhr.status < 300;
      if (!okStatus || envelope?.status === 'error') {
        const status = okStatus ? 400 : xhr.status;
        const errorText = serverErrorText(envelope, xhr.statusText ?? '');
        reportFailure(status, url, errorText, silent);
        reject(
          new ApiRequestError(
            status,
            url,
            errorText,
            envelope?.status === 'error' ? (envelope as ApiErrorBody) : undefined,
          ),
        );
        return;
      }
      onProgress?.(100);
      resolve((envelope ?? { status: 'ok', message: 'success', data: undefined }) as ApiOk<T>);
    };
    xhr.send(form);
  });
}
