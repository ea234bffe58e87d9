/**
 * The master's settings as an operator sees them: every variable's name, its default as the README shows it, and
 * what it does. Declarations only; `config.ts` reads them.
 */
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
  CRAWLDECK_SCRAPYD: {
    default: '`0`',
    description:
      '`1` turns on the Scrapyd-compatible web service under `/scrapyd/` (scrapyd-deploy, ScrapydWeb; docs/scrapyd.md)',
  },
  CRAWLDECK_SCRAPYD_PORT: {
    default: '_(empty)_',
    description:
      'with `CRAWLDECK_SCRAPYD=1`, also serve it at the root of this port on the listen address, as Scrapyd itself does (for tools that take only host:port)',
  },
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
  CRAWLDECK_LOG_REQUESTS: {
    default: '`false`',
    description:
      '`true`: one `request completed` entry per HTTP request at level info; otherwise requests are logged at debug, and at info only when slower than a second',
  },
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
  CRAWLDECK_MAX_ITEM_MB: {
    default: '`16`',
    description:
      "largest item a task stores, in MiB of its JSON line, on every store and data source. A larger item is refused: the task's log gets an error line with its size and the limit, and the task ends finished with an error that counts the refused items",
  },
  CRAWLDECK_DATASOURCE_WRITE_SECONDS: {
    default: '`30`',
    description:
      'longest write of one batch of items into a results database (data source); a database that does not answer by then counts as down: the task shows it as its error and the node sends the items again, or stops sending them once the task is cancelled',
  },
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
      "How long the background log indexer rests once every log is indexed; `0` turns it off (searches read the lines). SQLite: its index is a file beside the store (`crawldeck.log-index.db`); deleted while the master is stopped (e.g. after restoring a backup), it is rebuilt. PostgreSQL: logs of 20 000 lines or more are indexed by chunks of 128 lines, in the store, when the server has the `pg_trgm` and `btree_gin` extensions (PostgreSQL's contrib)",
  },
  CRAWLDECK_TASK_USER: {
    default: '`crawldeck-task`',
    description:
      'when the master/node runs as root: the unprivileged user that task processes and Scrapy introspection run as; created with `useradd` when missing ([docs/spiders.md](docs/spiders.md) "Isolation")',
  },
  CRAWLDECK_TASK_MEMORY_MB: {
    default: '`0`',
    description:
      'every task\'s memory limit in MiB, sent to every node with the task (a task over it ends with the reason "out of memory"); `0` leaves it to the node (`CRAWLDECK_TASK_MEMORY_MB` of the node, else none)',
  },
  CRAWLDECK_TASK_CPU_PERCENT: {
    default: '`0`',
    description: "every task's CPU limit in percent of one core, sent with the task; `0` leaves it to the node",
  },
  CRAWLDECK_TASK_MAX_PROCESSES: {
    default: '`0`',
    description:
      'every task\'s limit of processes at once, sent with the task (a task that hits it and fails ends with the reason "process limit"); `0` leaves it to the node',
  },
  CRAWLDECK_NODE_WORK_DIR: {
    default: '`<temp dir>/crawldeck-work-<hash>`',
    description: "where the embedded node's task processes run (outside the data dir)",
  },
  CRAWLDECK_GIT_TIMEOUT_MS: { default: '`120000`', description: 'time limit of one Git operation' },
  CRAWLDECK_ENV_JOB_TIMEOUT_MS: {
    default: '`2700000`',
    description:
      "an environment install job that its node has not taken, or has not reported on, for this long ends failed with the reason (a node that went away); longer than a node's own 30-minute limit of one tool run",
  },
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
  CRAWLDECK_TRUSTED_PROXIES: {
    default: '_(empty: trust none)_',
    description:
      "addresses or CIDR ranges (comma separated, e.g. `127.0.0.1,10.0.0.0/8`) of reverse proxies in front of the master. Only a request arriving directly from one of them has its client address taken from `X-Forwarded-For` (for the sign-in and sign-up limits and the log); from anywhere else that header is ignored, so a client cannot pick its own address. Behind a proxy that is not listed, every visitor shares the proxy's address",
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
