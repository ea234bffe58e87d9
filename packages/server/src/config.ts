import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowListProblem } from './outbound/addresses.ts';

/** Everything the master reads from its environment, resolved once at start-up (README "Configuration"). */
export interface MasterConfig {
  port: number;
  host: string;
  dataDir: string;
  /** `postgres://…` runs the store on PostgreSQL; empty means the embedded SQLite file in dataDir. */
  databaseUrl: string;
  /** Password of the `admin` user created on the first start; generated and written to the data dir when empty. */
  adminPassword: string;
  /** Folder holding the built console (index.html + assets). */
  consoleDir: string;
  /** Shared secret worker nodes present to join (generated into the data dir when unset). */
  nodeKey: string;
  /** Whether this master runs its own node of type `master` (spec §3). */
  embeddedNode: boolean;
  /** Lifetime of a login session token. */
  sessionTtlMs: number;
  /** Where GET /releases/latest reads the latest release (a GitHub-style JSON URL); empty disables it. */
  releasesUrl: string;
  /** Base URL that the documentation links of GET /docs point to. */
  docsUrl: string;
  /** Server default for the console tutorial (GET /setting enable_tutorial). */
  enableTutorial: boolean;
  logLevel: string;
  /** Failed sign-ins per (username, address) before each further attempt waits a doubling delay. */
  loginFreeFailures: number;
  /** Longest such delay. */
  loginMaxDelayMs: number;
  /** Anonymous sign-ups allowed per client address and hour. */
  signupsPerHour: number;
  /** Where the log goes instead of stdout (tests read it). */
  logStream?: NodeJS.WritableStream;
  /** Log lines for a person (coloured, one line each) instead of JSON: by default when stdout is a terminal. */
  logPretty: boolean;
  /** CIDR ranges the master may reach when it fetches for users (previews, Git, webhooks) besides public addresses. */
  outboundAllow: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_CONSOLE_DIR = path.resolve(here, '../../console/dist');

function readOrCreateSecret(dataDir: string, file: string): string {
  const p = path.join(dataDir, file);
  if (existsSync(p)) return readFileSync(p, 'utf8').trim();
  const secret = randomBytes(24).toString('base64url');
  writeFileSync(p, secret + '\n', { mode: 0o600 });
  return secret;
}

/**
 * The data dir holds the store, the node key, the secret key and the initial admin password: the master's alone
 * (0700, files 0600), also when an older version created it more open. Spider processes never run in it.
 */
function lockDownDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  for (const file of ['crawldeck.db', 'crawldeck.db-wal', 'crawldeck.db-shm', 'node-key', 'secret-key', 'initial-admin-password']) {
    const p = path.join(dataDir, file);
    if (existsSync(p)) chmodSync(p, 0o600);
  }
}

function bool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return ['1', 'true', 'yes', 'y', 'on'].includes(value.toLowerCase());
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

function checkedAllowList(text: string): string {
  const problem = allowListProblem(text);
  if (problem) throw new Error(`CRAWLDECK_OUTBOUND_ALLOW: ${problem}`);
  return text;
}

/** Builds the config from overrides (tests, CLI flags) over environment variables over defaults. */
export function loadConfig(overrides: Partial<MasterConfig> = {}, env: NodeJS.ProcessEnv = process.env): MasterConfig {
  const dataDir = path.resolve(overrides.dataDir ?? env.CRAWLDECK_DATA_DIR ?? './data');
  lockDownDataDir(dataDir);
  const port = overrides.port ?? Number(env.CRAWLDECK_PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`CRAWLDECK_PORT must be a port number, got ${env.CRAWLDECK_PORT}`);
  const databaseUrl = overrides.databaseUrl ?? env.CRAWLDECK_DATABASE_URL ?? '';
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('CRAWLDECK_DATABASE_URL must start with postgres:// (leave it unset for the embedded SQLite store)');
  }
  return {
    port,
    host: overrides.host ?? env.CRAWLDECK_HOST ?? '0.0.0.0',
    dataDir,
    databaseUrl,
    adminPassword: overrides.adminPassword ?? env.CRAWLDECK_ADMIN_PASSWORD ?? '',
    consoleDir: overrides.consoleDir ?? env.CRAWLDECK_CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR,
    nodeKey: overrides.nodeKey ?? env.CRAWLDECK_NODE_KEY ?? readOrCreateSecret(dataDir, 'node-key'),
    embeddedNode: overrides.embeddedNode ?? bool(env.CRAWLDECK_EMBEDDED_NODE, true),
    sessionTtlMs: overrides.sessionTtlMs ?? Number(env.CRAWLDECK_SESSION_TTL_HOURS ?? 24 * 7) * 3600_000,
    releasesUrl: overrides.releasesUrl ?? env.CRAWLDECK_RELEASES_URL ?? '',
    docsUrl: overrides.docsUrl ?? env.CRAWLDECK_DOCS_URL ?? '/docs',
    enableTutorial: overrides.enableTutorial ?? bool(env.CRAWLDECK_ENABLE_TUTORIAL, true),
    logLevel: overrides.logLevel ?? env.CRAWLDECK_LOG_LEVEL ?? 'info',
    loginFreeFailures: overrides.loginFreeFailures ?? positiveInt(env, 'CRAWLDECK_LOGIN_FREE_FAILURES', 5),
    loginMaxDelayMs: overrides.loginMaxDelayMs ?? positiveInt(env, 'CRAWLDECK_LOGIN_MAX_DELAY_SECONDS', 60) * 1000,
    signupsPerHour: overrides.signupsPerHour ?? positiveInt(env, 'CRAWLDECK_SIGNUPS_PER_HOUR', 10),
    logStream: overrides.logStream,
    logPretty: overrides.logPretty ?? bool(env.CRAWLDECK_LOG_PRETTY, process.stdout.isTTY === true && !overrides.logStream),
    outboundAllow: checkedAllowList(overrides.outboundAllow ?? env.CRAWLDECK_OUTBOUND_ALLOW ?? ''),
  };
}
