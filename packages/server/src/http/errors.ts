import { codeForText, notFoundCode, type ErrorCode, type ErrorParams } from '@crawldeck/shared';

/** A catalogued code with the params of its text (see the error catalogue in @crawldeck/shared). */
export interface Coded {
  code: ErrorCode;
  params?: ErrorParams;
}

/**
 * An error with an HTTP status whose message is safe to show in the console. Without an explicit code it gets
 * the catalogue entry of its text, or the generic code of its status.
 */
export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly params?: ErrorParams;

  constructor(
    public readonly statusCode: number,
    message: string,
    coded?: Coded,
  ) {
    super(message);
    const c = coded ?? codeForText(statusCode, message);
    this.code = c.code;
    this.params = c.params;
  }
}

export const badRequest = (message: string, coded?: Coded) => new HttpError(400, message, coded);
export const unauthorized = (message = 'unauthorized: sign in or send a valid token') => new HttpError(401, message);
export const forbidden = (message = 'forbidden: your role may not do this') => new HttpError(403, message);
export const notFound = (what: string) => {
  const code = notFoundCode(what);
  return new HttpError(
    404,
    `${what} not found`,
    code ? { code } : { code: 'request.not_found', params: { message: `${what} not found` } },
  );
};
export const conflict = (message: string) => new HttpError(409, message);
