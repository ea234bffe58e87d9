import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Secrets at rest (e.g. Git passwords): AES-256-GCM with a key kept in `<dataDir>/secret-key` (created 0600 on
 * first use). Several masters on one PostgreSQL store must share the key: copy the file, or configure the same
 * key (the master's `secretKey`, 64 hex characters) on every master; a configured key wins over the file.
 * Format: `v1:` + base64(iv[12] | tag[16] | ciphertext).
 */
const keys = new Map<string, Buffer>();

function parseKey(text: string, where: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32) throw new Error(`${where} must hold a 32-byte key (64 hex characters)`);
  return key;
}

/** Makes `key` the secret key of the master whose data dir is `dataDir` (called at start-up; empty: use the file). */
export function useSecretKey(dataDir: string, key: string): void {
  if (key) keys.set(dataDir, parseKey(key, 'CRAWLDECK_SECRET_KEY'));
}

function loadKey(dataDir: string): Buffer {
  const cached = keys.get(dataDir);
  if (cached) return cached;
  const file = path.join(dataDir, 'secret-key');
  let key: Buffer;
  try {
    key = parseKey(readFileSync(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const fresh = randomBytes(32).toString('hex');
    try {
      // 'wx': when two processes race, exactly one creates it and the other reads the winner's key.
      writeFileSync(file, fresh + '\n', { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    key = parseKey(readFileSync(file, 'utf8'), file);
  }
  keys.set(dataDir, key);
  return key;
}

export function encryptSecret(dataDir: string, plain: string): string {
  const key = loadKey(dataDir);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return 'v1:' + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
}

/** Throws when the value was not made with this key (wrong key file, tampered value). */
export function decryptSecret(dataDir: string, enc: string): string {
  if (!enc.startsWith('v1:')) throw new Error('unknown secret format');
  const raw = Buffer.from(enc.slice(3), 'base64');
  if (raw.length < 28) throw new Error('secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', loadKey(dataDir), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
