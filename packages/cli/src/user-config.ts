import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Where `crawldeck login` keeps the master's address and the API token: `crawldeck/config.json` in the user's
 * config folder (XDG_CONFIG_HOME, else ~/.config), readable by the user only. CRAWLDECK_CONFIG_DIR points
 * elsewhere (several masters, tests); CRAWLDECK_URL and CRAWLDECK_TOKEN override the file for one command.
 */
export interface CliSettings {
  url: string;
  token: string;
  /** The id of a token `crawldeck login` made with a password, which `crawldeck logout` revokes on the master. */
  token_id?: string;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CRAWLDECK_CONFIG_DIR) return env.CRAWLDECK_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'crawldeck');
}

export const configFile = (env: NodeJS.ProcessEnv = process.env) => path.join(configDir(env), 'config.json');

/** What the config file holds, without the environment's overrides. */
export function storedSettings(env: NodeJS.ProcessEnv = process.env): Partial<CliSettings> {
  const file = configFile(env);
  let stored: Partial<CliSettings> = {};
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<CliSettings>;
    } catch {
      throw new Error(`${file} is not valid JSON; run \`crawldeck login\` again`);
    }
  }
  return stored;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Partial<CliSettings> {
  const stored = storedSettings(env);
  return { url: env.CRAWLDECK_URL || stored.url, token: env.CRAWLDECK_TOKEN || stored.token };
}

export function writeSettings(settings: Partial<CliSettings>, env: NodeJS.ProcessEnv = process.env): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = configFile(env);
  writeFileSync(file, JSON.stringify(settings, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** The settings every command but login needs; a clear message when the user has not signed in yet. */
export function requireSettings(env: NodeJS.ProcessEnv = process.env): CliSettings {
  const s = readSettings(env);
  if (!s.url || !s.token)
    throw new Error(
      'not signed in: run `crawldeck login --url http://MASTER:8080` first (or set CRAWLDECK_URL and CRAWLDECK_TOKEN)',
    );
  return { url: s.url, token: s.token };
}
