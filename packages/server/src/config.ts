import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_ITEM_BYTES } from '@crawldeck/shared';
import { allowListProblem } from './outbound/addresses.ts';
import type { SqliteCacheSettings } from './store/sqlite-cache.ts';
import type { MasterVariable } from './config-variables.ts';

export { MASTER_VARIABLES, masterVariableTable, type MasterVariable } from './config-variables.ts';

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
  /** The Scrapyd-compatible web service: on or off, and a port of its own (null: only under `/scrapyd/`; 0: any free one). */
  scrapyd: boolean;
  scrapydPort: number | null;
  /** Lifetime of a login session token. */
  sessionTtlMs: number;
  /** Where GET /releases/latest reads the latest release (a GitHub-style JSON URL); empty disables it. */
  releasesUrl: string;
  /** Base URL that the documentation links of GET /docs point to. */
  docsUrl: string;
  /** Server default for the console tutorial (GET /setting enable_tutorial). */
  enableTutorial: boolean;
  logLevel: string;
  /** Every HTTP request logged at info (an access log); otherwise at debug, slow ones at info. */
  logRequests: boolean;
  /** Failed sign-ins per (username, address) before each further attempt waits a doubling delay. */
  loginFreeFailures: number;
  /** Longest such delay. */
  loginMaxDelayMs: number;
  /**
   * Addresses and CIDR ranges of the reverse proxies in front of the master; a request arriving directly from one
   * of them is attributed to the client named in X-Forwarded-For. Empty: the direct peer is always the client.
   */
  trustedProxies: string[];
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
  /** Largest item a task stores, in bytes of its JSON line; a larger one is refused and the task says so. */
  maxItemBytes: number;
  /** Node heartbeat interval and the silence after which a node is offline. */
  nodeHeartbeatMs: number;
  nodeOfflineMs: number;
  /** Longest write of one batch of items into a results database before it counts as down. */
  dataSourceWriteMs: number;
  /** How long a shipped batch that came before its predecessor waits for it (several batches of a task in flight). */
  ingestWaitMs: number;
  /** Python of the master's own Scrapy introspection and Spiderfile checks. */
  python: string;
  scrapyTimeoutMs: number;
  /** Time budget of one keyword search in a task log, and the SQLite search worker threads. */
  logSearchBudgetMs: number;
  logSearchWorkers: number;
  /** Pause of the background log indexer (SQLite's, or PostgreSQL's of chunks) when it has caught up; 0: no indexer. */
  logIndexIdleMs: number;
  /** Unprivileged user that untrusted processes run as when the master runs as root. */
  taskUser: string;
  /** Resource limits sent with every task (0: the node's own default). */
  taskLimits: { memoryMb: number; cpuPercent: number; maxProcesses: number };
  /** Working folder of the embedded node's task processes; empty: one in the system temp dir. */
  nodeWorkDir: string;
  gitTimeoutMs: number;
  /** How long an environment job may wait for its node to take it, or to hear from it while it runs. */
  envJobTimeoutMs: number;
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
const MIB = 1024 * 1024;

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

/** The trusted proxies as a list, each entry checked to be an address or CIDR range. */
function checkedProxies(text: string): string[] {
  const problem = allowListProblem(text);
  if (problem) throw new Error(`CRAWLDECK_TRUSTED_PROXIES: ${problem}`);
  return text.split(/[\s,]+/).filter(Boolean);
}

function systemTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The Scrapyd port: unset is none; anything but a port number stops the start with the variable's name. */
function scrapydPort(env: EnvReader): number | null {
  const raw = env.raw('CRAWLDECK_SCRAPYD_PORT');
  if (raw === undefined) return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`CRAWLDECK_SCRAPYD_PORT must be a port number, got ${raw}`);
  return n;
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
    scrapyd: env.bool('CRAWLDECK_SCRAPYD', false),
    scrapydPort: scrapydPort(env),
    sessionTtlMs: Number(env.text('CRAWLDECK_SESSION_TTL_HOURS', String(24 * 7))) * 3600_000,
    releasesUrl: env.text('CRAWLDECK_RELEASES_URL', ''),
    docsUrl: env.text('CRAWLDECK_DOCS_URL', '/docs'),
    enableTutorial: env.bool('CRAWLDECK_ENABLE_TUTORIAL', true),
    logLevel: env.text('CRAWLDECK_LOG_LEVEL', 'info'),
    logRequests: env.bool('CRAWLDECK_LOG_REQUESTS', false),
    logPretty: env.bool('CRAWLDECK_LOG_PRETTY', process.stdout.isTTY === true && !overrides.logStream),
    secretKey: env.text('CRAWLDECK_SECRET_KEY', ''),
  };
}

function limitSettings(overrides: Partial<MasterConfig>, env: EnvReader) {
  return {
    loginFreeFailures: env.positiveInt('CRAWLDECK_LOGIN_FREE_FAILURES', 5),
    loginMaxDelayMs: env.positiveInt('CRAWLDECK_LOGIN_MAX_DELAY_SECONDS', 60) * 1000,
    trustedProxies: checkedProxies(env.text('CRAWLDECK_TRUSTED_PROXIES', '')),
    signupsPerHour: env.positiveInt('CRAWLDECK_SIGNUPS_PER_HOUR', 10),
    outboundAllow: checkedAllowList(overrides.outboundAllow ?? env.text('CRAWLDECK_OUTBOUND_ALLOW', '')),
    zipMaxEntries: env.positiveInt('CRAWLDECK_ZIP_MAX_ENTRIES', DEFAULT_ZIP_MAX_ENTRIES),
    zipMaxBytes: env.positiveInt('CRAWLDECK_ZIP_MAX_BYTES', DEFAULT_ZIP_MAX_BYTES),
    maxFileBytes: env.positiveInt('CRAWLDECK_MAX_FILE_BYTES', DEFAULT_MAX_FILE_BYTES),
    maxItemBytes: env.positiveInt('CRAWLDECK_MAX_ITEM_MB', DEFAULT_MAX_ITEM_BYTES / MIB) * MIB,
    previewTimeoutMs: env.positiveNumber('CRAWLDECK_PREVIEW_TIMEOUT_MS', 20_000),
    previewMaxRequests: env.positiveNumber('CRAWLDECK_PREVIEW_MAX_REQUESTS', 40),
  };
}

function processSettings(env: EnvReader) {
  const autoSyncS = Number(env.raw('CRAWLDECK_GIT_AUTO_SYNC_S') ?? 300);
  return {
    nodeHeartbeatMs: env.positiveNumber('CRAWLDECK_NODE_HEARTBEAT_SECONDS', 2) * 1000,
    nodeOfflineMs: env.positiveNumber('CRAWLDECK_NODE_OFFLINE_SECONDS', 10) * 1000,
    dataSourceWriteMs: env.positiveNumber('CRAWLDECK_DATASOURCE_WRITE_SECONDS', 30) * 1000,
    ingestWaitMs: env.positiveNumber('CRAWLDECK_INGEST_WAIT_MS', 2000),
    python: env.text('CRAWLDECK_PYTHON', '/usr/bin/python3'),
    scrapyTimeoutMs: env.positiveNumber('CRAWLDECK_SCRAPY_TIMEOUT_MS', 60_000),
    logSearchBudgetMs: env.positiveNumber('CRAWLDECK_LOG_SEARCH_BUDGET_MS', 2000),
    logSearchWorkers: env.positiveInt('CRAWLDECK_LOG_SEARCH_WORKERS', 2),
    logIndexIdleMs: logIndexIdle(env.raw('CRAWLDECK_LOG_INDEX_IDLE_MS')),
    taskUser: env.text('CRAWLDECK_TASK_USER', 'crawldeck-task'),
    nodeWorkDir: env.text('CRAWLDECK_NODE_WORK_DIR', ''),
    taskLimits: {
      memoryMb: env.wholeNumber('CRAWLDECK_TASK_MEMORY_MB', 0),
      cpuPercent: env.wholeNumber('CRAWLDECK_TASK_CPU_PERCENT', 0),
      maxProcesses: env.wholeNumber('CRAWLDECK_TASK_MAX_PROCESSES', 0),
    },
    gitTimeoutMs: env.positiveNumber('CRAWLDECK_GIT_TIMEOUT_MS', 120_000),
    envJobTimeoutMs: env.positiveNumber('CRAWLDECK_ENV_JOB_TIMEOUT_MS', 45 * 60_000),
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
