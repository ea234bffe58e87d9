/**
 * Texts of failed calls in the user's language. The server answers every failure with its English text in
 * `error` and, where it has one, a stable `code` with `params` (the field, a limit...). The console looks the code
 * up under `errors:` in its locale files and fills in the params; without a code, or for a code this console does
 * not know yet, the server's own text is shown.
 */
import type { ApiError } from '@crawldeck/shared';
import i18n from '../locales/index.ts';

/** The error envelope with the optional stable code and its parameters. */
export interface ApiErrorBody extends ApiError {
  code?: string;
  params?: Record<string, string | number>;
}

/** Parameters with field names shown in the user's language where the console knows them. */
function localParams(params: ApiErrorBody['params']): Record<string, string | number> {
  const out: Record<string, string | number> = { ...(params ?? {}) };
  if (typeof out.field === 'string') {
    const key = `errors:fields.${out.field}`;
    if (i18n.exists(key)) out.field = i18n.t(key);
  }
  return out;
}

/** The text to show for a failed response: translated by its code when known, else the server's text. */
export function serverErrorText(body: Partial<ApiErrorBody> | undefined, fallback = ''): string {
  const serverText = String(body?.error ?? body?.message ?? fallback);
  const code = typeof body?.code === 'string' ? body.code : '';
  if (!code || typeof i18n.getResource(i18n.resolvedLanguage ?? i18n.language, 'errors', code) !== 'string')
    return serverText;
  const text = i18n.t(`errors:${code}`, { ...localParams(body?.params), defaultValue: serverText });
  // a text that needs a parameter the server did not send would show a placeholder: the server's text says more
  return text.includes('{{') ? serverText : text;
}
