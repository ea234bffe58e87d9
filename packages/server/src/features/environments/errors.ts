import { HttpError } from '../../http/errors.ts';

/** The configured package index failed us (down, slow, garbage): the caller sees why, as a 502. */
export const badGateway = (message: string) => new HttpError(502, message);
