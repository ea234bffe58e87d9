/**
 * Index and registry passwords at rest: the settings keep each URL without its password and the password encrypted
 * beside it (like data-source and Git passwords), so a copy of the store or a backup does not give them away. The
 * console reads them as `***`; a URL saved back with `***` for the password, the same user and host keeps the stored
 * one, so editing another field never asks for it again.
 */
import { EMPTY_ENV_SETTINGS, type EnvSettings } from '@crawldeck/shared';
import { decryptSecret, encryptSecret } from '../../crypto/secrets.ts';
import { badRequest } from '../../http/errors.ts';

export const MASK = '***';
const FIELDS = ['pip_index_url', 'pip_extra_index_url', 'npm_registry'] as const;

/** The settings as stored: URLs without passwords, and the encrypted passwords by field. */
export interface StoredEnvSettings extends Partial<EnvSettings> {
  passwords_enc?: Partial<Record<(typeof FIELDS)[number], string>>;
  /** A new random value at each save: nodes compare it to know whether their copy is current. */
  version?: string;
}

const parse = (raw: string): URL | undefined => {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
};

/** The settings with their passwords, for the nodes and the index lookup. */
export function openSettings(dataDir: string, stored: StoredEnvSettings): EnvSettings {
  const out: EnvSettings = { ...EMPTY_ENV_SETTINGS };
  for (const f of FIELDS) {
    const raw = stored[f] ?? '';
    const enc = stored.passwords_enc?.[f];
    const u = enc ? parse(raw) : undefined;
    if (u && enc) {
      u.password = encodeURIComponent(decryptSecret(dataDir, enc));
      out[f] = u.toString();
    } else out[f] = raw;
  }
  return out;
}

/** The settings as the console shows them: each password `***`. */
export function maskSettings(s: EnvSettings): EnvSettings {
  const out: EnvSettings = { ...s };
  for (const f of FIELDS) {
    const u = parse(s[f]);
    if (u?.password) {
      u.password = MASK;
      out[f] = u.toString().replace(encodeURIComponent(MASK), MASK);
    }
  }
  return out;
}

/**
 * What to store for the settings an administrator saved: a masked password taken from `current` (same user and
 * host), a new one encrypted; a mask with nothing to keep is refused.
 */
export function sealSettings(dataDir: string, body: EnvSettings, current: EnvSettings): StoredEnvSettings {
  const stored: StoredEnvSettings = { ...EMPTY_ENV_SETTINGS, passwords_enc: {} };
  for (const f of FIELDS) {
    const u = parse(body[f]);
    if (!u?.password) {
      stored[f] = body[f];
      continue;
    }
    let password = decodeURIComponent(u.password);
    if (password === MASK || u.password === encodeURIComponent(MASK)) {
      const before = parse(current[f]);
      if (!before?.password || before.host !== u.host || before.username !== u.username)
        throw badRequest(`${f}: type the password again (the user or host changed)`);
      password = decodeURIComponent(before.password);
    }
    u.password = '';
    stored[f] = u.toString();
    stored.passwords_enc![f] = encryptSecret(dataDir, password);
  }
  return stored;
}
