import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowListProblem } from './outbound/addresses.ts';
import type { SqliteCacheSettings } from './store/sqlite-cache.ts';
import { renderVariableTable, type VariableDefinition } from '@crawldeck/shared/config-table.ts';

/**
 * Every environment variable the master reads, with its default as the README shows it and what it does. The
 * README's configuration table is rendered from this list (a unit test fails when the two differ), and
 * `loadConfig` reads the environment only through these names.
 */
export const MASTER_VARIABLES = {
  CRAWLDECK_PORT: {
    default: '`8080`',
    description: 'HTTP port: console at `/`, API at `/api`, OpenAPI at `/api/openapi`',
  },
  CRAWLDECK_HOST: { default: '`0.0.0.0`', description: 'listen address' },
  CRAWLDECK_DATA_DIR: {
    default: '`./data`',
    description: "SQLite file, generated secrets, embedded node's data; made 0700 (files 0600) on start",
  },
  CRAWLDECK_DATABASE_URL: {
    default: '_(empty)_',
    description: '`postgres://…` runs the store on PostgreSQL instead of SQLite',
  },
  CRAWLDECK_SQLITE_CACHE_MB: {
    default: '`128`',
    description:
      "SQLite: page cache (MiB) of the master's connection to the store and of the log indexer's to its index file; it fills only as pages are read. Smaller than the hot index pages of a store of millions of tasks (tens of MB), it makes task writes read them again from the file",
  },
  CRAWLDECK_SQLITE_MMAP_MB: {
    default: '`0`',
    description:
      'SQLite: how much of the store file (MiB) those connections read through a memory map instead of read calls; `0` turns it off',
  },
  CRAWLDECK_ADMIN_PASSWORD: {
    default: '_(generated)_',
    description: 'password of the `admin` user created on the first start',
  },
  CRAWLDECK_CONSOLE_DIR: {
    default: '`packages/console/dist`',
    description: 'folder of the built console (index.html and assets)',
  },
  CRAWLDECK_NODE_KEY: { default: '_(generated into the data dir)_', description: 'key worker nodes present to join' },
  CRAWLDECK_EMBEDDED_NODE: { default: '`true`', description: "run the master's own node (type `master`)" },
  CRAWLDECK_SESSION_TTL_HOURS: { default: '`168`', description: 'lifetime of a sign-in session' },
  CRAWLDECK_RELEASES_URL: {
    default: '_(empty)_',
    description:
      'GitHub-style JSON URL of the latest release for the upgrade hint; empty turns it off (`GET /api/releases/latest` answers `{configured: false}`)',
  },
  CRAWLDECK_DOCS_URL: { default: '`/docs`', description: 'base URL of the documentation links' },
  CRAWLDECK_ENABLE_TUTORIAL: { default: '`true`', description: "server default of the console's guided tours" },
  CRAWLDECK_LOG_LEVEL: { default: '`info`', description: 'pino log level' },
  CRAWLDECK_LOG_PRETTY: {
    default: 'on when stdout is a terminal',
    description:
      '`true`: coloured one-line log entries for a person (pino-pretty); `false`: one JSON object per line, for log collectors',
  },
  CRAWLDECK_SECRET_KEY: {
    default: '_(generated into the data dir)_',
    description:
      '64 hex characters; key that encrypts stored secrets (Git passwords). Several masters on one PostgreSQL store must share it',
  },
  CRAWLDECK_ZIP_MAX_ENTRIES: {
    default: '`20000`',
    description: 'most entries of an uploaded spider zip or a Git checkout',
  },
  CRAWLDECK_ZIP_MAX_BYTES: {
    default: '64 MiB (`67108864`)',
    description:
      'largest expanded size in bytes of an uploaded spider zip or a Git checkout; the zip upload itself may be at most that size + 1 MiB. Raise it for spiders that carry large data files',
  },
  CRAWLDECK_MAX_FILE_BYTES: { default: '10 MiB', description: 'largest spider file opened in the editor' },
  CRAWLDECK_INGEST_WAIT_MS: {
    default: '`2000`',
    description:
      "how long a node's batch of log lines or items that arrived before its predecessor waits for it; then the node ships again",
  },
  CRAWLDECK_NODE_HEARTBEAT_SECONDS: { default: '`2`', description: 'node heartbeat interval' },
  CRAWLDECK_NODE_OFFLINE_SECONDS: {
    default: '`10`',
    description: 'silence after which a node is offline and its running tasks abnormal',
  },
  CRAWLDECK_PYTHON: {
    default: '`/usr/bin/python3`',
    description:
      "interpreter for Scrapy project introspection and configurable-spider checks; the embedded node's spiders use it too (there the default is `/usr/bin/python3` when it has Scrapy, else `python3`)",
  },
  CRAWLDECK_SCRAPY_TIMEOUT_MS: { default: '`60000`', description: 'time limit of one Scrapy introspection call' },
  CRAWLDECK_LOG_SEARCH_BUDGET_MS: {
    default: '`2000`',
    description:
      'time budget of one keyword search in a task log: when it runs out the page found so far is answered and `total` is a lower bound (`total_partial: true`)',
  },
  CRAWLDECK_LOG_SEARCH_WORKERS: {
    default: '`2`',
    description: 'worker threads that run log searches on SQLite, each with its own read-only connection',
  },
  CRAWLDECK_LOG_INDEX_IDLE_MS: {
    default: '`1000`',
    description:
      'SQLite: how long the background log indexer rests once every log is indexed; `0` turns it off (searches read the lines). Its index is a file beside the store (`crawldeck.log-index.db`); deleted while the master is stopped (e.g. after restoring a backup), it is rebuilt',
  },
  CRAWLDECK_TASK_USER: {
    default: '`crawldeck-task`',
    description:
      'when the master/node runs as root: the unprivileged user that task processes and Scrapy introspection run as; created with `useradd` when missing ([docs/spiders.md](docs/spiders.md) "Isolation")',
  },
  CRAWLDECK_NODE_WORK_DIR: {
    default: '`<temp dir>/crawldeck-work-<hash>`',
    description: "where the embedded node's task processes run (outside the data dir)",
  },
  CRAWLDECK_GIT_TIMEOUT_MS: { default: '`120000`', description: 'time limit of one Git operation' },
  CRAWLDECK_GIT_AUTO_SYNC_S: {
    default: '`300`',
    description: 'auto-sync interval (seconds) of Git spiders with auto-sync on; `0` turns auto-sync off',
  },
  CRAWLDECK_PREVIEW_TIMEOUT_MS: {
    default: '`20000`',
    description:
      "time budget of a configurable spider's preview crawl and field suggestion (a Spiderfile's `TIMEOUT` and `DOWNLOAD_DELAY` can only shorten it); answers are also cut at 5 MiB each and 20 MiB in total",
  },
  CRAWLDECK_PREVIEW_MAX_REQUESTS: {
    default: '`40`',
    description: 'most requests of one preview crawl or field suggestion',
  },
  CRAWLDECK_OUTBOUND_ALLOW: {
    default: '_(empty)_',
    description:
      'CIDR ranges (comma separated, e.g. `10.20.0.0/16,fd00::/8`) the master may reach when it fetches for users, besides public addresses; see "Outbound requests" below',
  },
  CRAWLDECK_TZ: { default: '`TZ`, else the system zone', description: 'default time zone of schedules' },
  CRAWLDECK_SCHEDULER: {
    default: '_(on)_',
    description: '`off` keeps this master out of the scheduler leader election',
  },
  CRAWLDECK_SCHEDULE_GRACE_SECONDS: {
    default: '`60`',
    description: 'a fire missed while no scheduler ran is caught up once if it is at most this old (docs/schedules.md)',
  },
  CRAWLDECK_SCHEDULER_LOCK_RETRY_SECONDS: {
    default: '`3`',
    description: 'how often standby masters try to take the scheduler lock on PostgreSQL',
  },
  CRAWLDECK_WEBHOOK_TIMEOUT_MS: { default: '`5000`', description: 'webhook request timeout' },
  CRAWLDECK_WEBHOOK_BACKOFF_MS: {
    default: '`1000`',
    description: 'first retry delay of a webhook delivery (doubles, 5 retries)',
  },
  CRAWLDECK_LOGIN_FREE_FAILURES: {
    default: '`5`',
    description:
      'failed sign-ins per (username, client address) before each further attempt from there waits; the wait starts at 1 s and doubles. The same username from another address is not slowed, so an attacker cannot lock the owner out. One address alone gets ten times this budget across all usernames',
  },
  CRAWLDECK_LOGIN_MAX_DELAY_SECONDS: {
    default: '`60`',
    description: 'longest wait between sign-in attempts once the delays apply (answer 429 with `Retry-After`)',
  },
  CRAWLDECK_SIGNUPS_PER_HOUR: {
    default: '`10`',
    description: 'anonymous sign-ups (`PUT /api/users`) per client address and hour',
  },
} as const satisfies Record<string, VariableDefinition>;

export type MasterVariable = keyof typeof MASTER_VARIABLES;

/** The README's table of the master's variables, rendered from the definitions above. */
export const masterVariableTable = (): string => renderVariableTable(MASTER_VARIABLES);

/** Everything the master reads from its environment, resolved once at start-up. */
export interface MasterConfig {
  port: number;
  host: string;
  dataDir: string;
  /** `postgres://…` runs the store on PostgreSQL; empty means the embedded SQLite file in dataDir. */
  databaseUrl: string;
  /** SQLite: page cache and memory map of the master's connection and of the log indexer's. */
  sqliteCache: SqliteCacheSettings;
  /** Password of the `admin` user created on the first start; generated and written to the data dir when empty. */
  adminPassword: string;
  /** Folder holding the built console (index.html + assets). */
  consoleDir: string;
  /** Shared secret worker nodes present to join (generated into the data dir when unset). */
  nodeKey: string;
  /** Whether this master runs its own node of type `master`. */
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
  /** Key of the stored secrets (hex or base64 of 32 bytes); empty: the key file in the data dir. */
  secretKey: string;
  /** Limits of an uploaded spider zip and of a Git checkout. */
  zipMaxEntries: number;
  zipMaxBytes: number;
  /** Largest spider file the editor opens. */
  maxFileBytes: number;
  /** Node heartbeat interval and the silence after which a node is offline. */
  nodeHeartbeatMs: number;
  nodeOfflineMs: number;
  /** How long a shipped batch that came before its predecessor waits for it (several batches of a task in flight). */
  ingestWaitMs: number;
  /** Python of the master's own Scrapy introspection and Spiderfile checks. */
  python: string;
  scrapyTimeoutMs: number;
  /** Time budget of one keyword search in a task log, and the SQLite search worker threads. */
  logSearchBudgetMs: number;
  logSearchWorkers: number;
  /** Pause of the background log indexer when it has caught up; 0: no indexer. */
  logIndexIdleMs: number;
  /** Unprivileged user that untrusted processes run as when the master runs as root. */
  taskUser: string;
  /** Working folder of the embedded node's task processes; empty: one in the system temp dir. */
  nodeWorkDir: string;
  gitTimeoutMs: number;
  /** Auto-sync interval of Git spiders; 0 turns auto-sync off. */
  gitAutoSyncMs: number;
  /** Budget of a configurable spider's preview crawl. */
  previewTimeoutMs: number;
  previewMaxRequests: number;
  /** Zone a schedule's cron is read in when none is given. */
  defaultTimezone: string;
  /** False keeps this master out of the scheduler leader election (it still serves the API). */
  schedulerEnabled: boolean;
  /** A fire missed by at most this much is run once late; older ones are skipped. */
  scheduleGraceMs: number;
  /** How often a master that is not the scheduler leader tries to take the PostgreSQL advisory lock. */
  schedulerLockRetryMs: number;
  webhookTimeoutMs: number;
  /** First retry delay of a webhook delivery; each further retry doubles it. */
  webhookBackoffMs: number;
  /** PATH handed to the master's own helper processes (git, Python introspection): the master's PATH. */
  childPath: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_CONSOLE_DIR = path.resolve(here, '../../console/dist');
export const DEFAULT_ZIP_MAX_ENTRIES = 20_000;
export const DEFAULT_ZIP_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

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
  for (const file of [
    'crawldeck.db',
    'crawldeck.db-wal',
    'crawldeck.db-shm',
    'node-key',
    'secret-key',
    'initial-admin-password',
  ]) {
    const p = path.join(dataDir, file);
    if (existsSync(p)) chmodSync(p, 0o600);
  }
}

/** Reads the environment only through the names defined above (anything else does not type-check). */
class EnvReader {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** The raw value; undefined when unset or empty. */
  raw(name: MasterVariable): string | undefined {
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  text(name: MasterVariable, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  bool(name: MasterVariable, fallback: boolean): boolean {
    const v = this.raw(name);
    return v === undefined ? fallback : ['1', 'true', 'yes', 'y', 'on'].includes(v.toLowerCase());
  }

  /** A positive integer; anything else stops the start with the variable's name. */
  positiveInt(name: MasterVariable, fallback: number): number {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${v}`);
    return n;
  }

  /** A whole number, 0 included; anything else stops the start with the variable's name. */
  wholeNumber(name: MasterVariable, fallback: number): number {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${v}`);
    return n;
  }

  /** A number of at least `min`; anything else quietly falls back to the default. */
  lenientNumber(name: MasterVariable, fallback: number, min = 0): number {
    const v = this.raw(name);
    const n = Number(v);
    return v !== undefined && Number.isFinite(n) && n >= min ? n : fallback;
  }

  /** A number greater than zero; anything else quietly falls back to the default. */
  positiveNumber(name: MasterVariable, fallback: number): number {
    const n = Number(this.raw(name));
    return Number.isFinite(n) && n > 0 ? n : fallback;
  }
}

function checkedAllowList(text: string): string {
  const problem = allowListProblem(text);
  if (problem) throw new Error(`CRAWLDECK_OUTBOUND_ALLOW: ${problem}`);
  return text;
}

function systemTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function coreSettings(overrides: Partial<MasterConfig>, env: EnvReader) {
  const dataDir = path.resolve(overrides.dataDir ?? env.text('CRAWLDECK_DATA_DIR', './data'));
  lockDownDataDir(dataDir);
  const port = overrides.port ?? Number(env.text('CRAWLDECK_PORT', '8080'));
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`CRAWLDECK_PORT must be a port number, got ${env.raw('CRAWLDECK_PORT')}`);
  const databaseUrl = overrides.databaseUrl ?? env.text('CRAWLDECK_DATABASE_URL', '');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error(
      'CRAWLDECK_DATABASE_URL must start with postgres:// (leave it unset for the embedded SQLite store)',
    );
  }
  return {
    port,
    host: env.text('CRAWLDECK_HOST', '0.0.0.0'),
    dataDir,
    databaseUrl,
    sqliteCache: {
      cacheMb: env.positiveInt('CRAWLDECK_SQLITE_CACHE_MB', 128),
      mmapMb: env.wholeNumber('CRAWLDECK_SQLITE_MMAP_MB', 0),
    },
    adminPassword: env.text('CRAWLDECK_ADMIN_PASSWORD', ''),
    consoleDir: env.text('CRAWLDECK_CONSOLE_DIR', DEFAULT_CONSOLE_DIR),
    nodeKey: overrides.nodeKey ?? env.raw('CRAWLDECK_NODE_KEY') ?? readOrCreateSecret(dataDir, 'node-key'),
    embeddedNode: env.bool('CRAWLDECK_EMBEDDED_NODE', true),
    sessionTtlMs: Number(env.text('CRAWLDECK_SESSION_TTL_HOURS', String(24 * 7))) * 3600_000,
    releasesUrl: env.text('CRAWLDECK_RELEASES_URL', ''),
    docsUrl: env.text('CRAWLDECK_DOCS_URL', '/docs'),
    enableTutorial: env.bool('CRAWLDECK_ENABLE_TUTORIAL', true),
    logLevel: env.text('CRAWLDECK_LOG_LEVEL', 'info'),
    logPretty: env.bool('CRAWLDECK_LOG_PRETTY', process.stdout.isTTY === true && !overrides.logStream),
    secretKey: env.text('CRAWLDECK_SECRET_KEY', ''),
  };
}

function limitSettings(overrides: Partial<MasterConfig>, env: EnvReader) {
  return {
    loginFreeFailures: env.positiveInt('CRAWLDECK_LOGIN_FREE_FAILURES', 5),
    loginMaxDelayMs: env.positiveInt('CRAWLDECK_LOGIN_MAX_DELAY_SECONDS', 60) * 1000,
    signupsPerHour: env.positiveInt('CRAWLDECK_SIGNUPS_PER_HOUR', 10),
    outboundAllow: checkedAllowList(overrides.outboundAllow ?? env.text('CRAWLDECK_OUTBOUND_ALLOW', '')),
    zipMaxEntries: env.positiveInt('CRAWLDECK_ZIP_MAX_ENTRIES', DEFAULT_ZIP_MAX_ENTRIES),
    zipMaxBytes: env.positiveInt('CRAWLDECK_ZIP_MAX_BYTES', DEFAULT_ZIP_MAX_BYTES),
    maxFileBytes: env.positiveInt('CRAWLDECK_MAX_FILE_BYTES', DEFAULT_MAX_FILE_BYTES),
    previewTimeoutMs: env.positiveNumber('CRAWLDECK_PREVIEW_TIMEOUT_MS', 20_000),
    previewMaxRequests: env.positiveNumber('CRAWLDECK_PREVIEW_MAX_REQUESTS', 40),
  };
}

function processSettings(env: EnvReader) {
  const autoSyncS = Number(env.raw('CRAWLDECK_GIT_AUTO_SYNC_S') ?? 300);
  return {
    nodeHeartbeatMs: env.positiveNumber('CRAWLDECK_NODE_HEARTBEAT_SECONDS', 2) * 1000,
    nodeOfflineMs: env.positiveNumber('CRAWLDECK_NODE_OFFLINE_SECONDS', 10) * 1000,
    ingestWaitMs: env.positiveNumber('CRAWLDECK_INGEST_WAIT_MS', 2000),
    python: env.text('CRAWLDECK_PYTHON', '/usr/bin/python3'),
    scrapyTimeoutMs: env.positiveNumber('CRAWLDECK_SCRAPY_TIMEOUT_MS', 60_000),
    logSearchBudgetMs: env.positiveNumber('CRAWLDECK_LOG_SEARCH_BUDGET_MS', 2000),
    logSearchWorkers: env.positiveInt('CRAWLDECK_LOG_SEARCH_WORKERS', 2),
    logIndexIdleMs: logIndexIdle(env.raw('CRAWLDECK_LOG_INDEX_IDLE_MS')),
    taskUser: env.text('CRAWLDECK_TASK_USER', 'crawldeck-task'),
    nodeWorkDir: env.text('CRAWLDECK_NODE_WORK_DIR', ''),
    gitTimeoutMs: env.positiveNumber('CRAWLDECK_GIT_TIMEOUT_MS', 120_000),
    gitAutoSyncMs: Number.isFinite(autoSyncS) && autoSyncS > 0 ? autoSyncS * 1000 : 0,
  };
}

/** A pause in ms, or 0 (off); anything else falls back to the default. */
function logIndexIdle(raw: string | undefined): number {
  const ms = Number(raw ?? 1000);
  return Number.isFinite(ms) && ms >= 0 ? ms : 1000;
}

function scheduleSettings(env: EnvReader, processEnv: NodeJS.ProcessEnv) {
  return {
    defaultTimezone: env.raw('CRAWLDECK_TZ') || processEnv.TZ || systemTimezone(),
    schedulerEnabled: !['0', 'off', 'false', 'no'].includes((env.raw('CRAWLDECK_SCHEDULER') ?? '').toLowerCase()),
    scheduleGraceMs: env.lenientNumber('CRAWLDECK_SCHEDULE_GRACE_SECONDS', 60) * 1000,
    schedulerLockRetryMs: env.lenientNumber('CRAWLDECK_SCHEDULER_LOCK_RETRY_SECONDS', 3, 0.05) * 1000,
    webhookTimeoutMs: env.lenientNumber('CRAWLDECK_WEBHOOK_TIMEOUT_MS', 5000, 1),
    webhookBackoffMs: env.lenientNumber('CRAWLDECK_WEBHOOK_BACKOFF_MS', 1000, 1),
  };
}

/** Builds the config from overrides (tests, CLI flags) over environment variables over defaults. */
export function loadConfig(overrides: Partial<MasterConfig> = {}, env: NodeJS.ProcessEnv = process.env): MasterConfig {
  const reader = new EnvReader(env);
  const fromEnv: MasterConfig = {
    ...coreSettings(overrides, reader),
    ...limitSettings(overrides, reader),
    ...processSettings(reader),
    ...scheduleSettings(reader, env),
    childPath: env.PATH || '/usr/bin:/bin',
  };
  const merged: MasterConfig = { ...fromEnv };
  for (const [key, value] of Object.entries(overrides))
    if (value !== undefined) Object.assign(merged, { [key]: value });
  return merged;
}
