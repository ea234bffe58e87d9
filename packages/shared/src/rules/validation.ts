import { PASSWORD_MIN_LENGTH, USERNAME_MAX_LENGTH } from '../constants.ts';

/** Input rules checked the same way by the server's handlers and the console's forms, so both give one answer. */
export function isValidUsername(username: string): boolean {
  const u = username.trim();
  return u.length > 0 && u.length <= USERNAME_MAX_LENGTH;
}

export function isValidPassword(password: string): boolean {
  return typeof password === 'string' && password.length >= PASSWORD_MIN_LENGTH;
}

export function isValidEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
}

/** External link rule: starts with http, https, mailto or tel. */
export function isExternalLink(path: string): boolean {
  return /^(https?:|mailto:|tel:)/.test(path);
}
