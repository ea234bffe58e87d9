/** An error with an HTTP status whose message is safe to show in the console's toast. */
export class HttpError extends Error {
  constructor(
    public readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'unauthorized: sign in or send a valid token') => new HttpError(401, message);
export const forbidden = (message = 'forbidden: your role may not do this') => new HttpError(403, message);
export const notFound = (what: string) => new HttpError(404, `${what} not found`);
export const conflict = (message: string) => new HttpError(409, message);
