import type { EnvironmentTables } from '../features/environments/environments.tables.ts';
import type { GitTables } from '../features/git/git.schema.ts';
/**
 * Table types of the store, as Kysely sees them. Each feature declares its tables in its own interface below
 * and adds it to `DB`, so features do not edit each other's declarations.
 * Conventions: timestamps are epoch ms numbers, booleans 0/1, JSON columns are TEXT.
 */
export interface SessionTables {
  users: {
    id: string;
    username: string;
    password_hash: string;
    role: 'normal' | 'admin';
    email: string;
    settings: string;
    create_ts: number;
    update_ts: number;
  };
  tokens: {
    id: string;
    user_id: string;
    token_hash: string;
    /** `session` from POST /login, `api` from Settings → API tokens. */
    kind: 'session' | 'api';
    name: string;
    create_ts: number;
    expire_ts: number | null;
    last_used_ts: number | null;
  };
  settings: { key: string; value: string };
  actions: { id: string; user_id: string | null; type: string; params: string; create_ts: number };
}

/** Sites, collected URLs and feedback (migration 2026112204_sites). */
export interface SitesTables {
  sites: {
    id: string;
    domain: string;
    main_category: string;
    category: string;
    rank: number | null;
    name: string;
    description: string;
    create_ts: number;
    update_ts: number;
  };
  collected_urls: { id: string; url: string; region_code: string; title: string; create_ts: number; update_ts: number };
  feedback: {
    id: string;
    user_id: string | null;
    email: string;
    chat_account: string;
    content: string;
    create_ts: number;
  };
}

/** Spiders, their files (content-addressed blobs), projects and global variables. */
export interface SpiderTables {
  projects: {
    id: string;
    name: string;
    description: string;
    owner_id: string | null;
    create_ts: number;
    update_ts: number;
    /** Most tasks of the project's spiders holding a node's slot at once; 0: no limit (migration 2026120920). */
    max_running: import('kysely').Generated<number>;
  };
  project_tags: { project_id: string; tag: string };
  spiders: {
    id: string;
    name: string;
    display_name: string;
    type: 'customized' | 'configurable';
    cmd: string;
    col: string;
    src: string;
    project_id: string | null;
    is_public: number;
    owner_id: string;
    is_scrapy: number;
    is_dedup: number;
    dedup_field: string;
    dedup_method: 'ignore' | 'overwrite';
    /** JSON [{name, value}] */
    envs: string;
    git_url: string;
    git_branch: string;
    git_username: string;
    /** encryptSecret() output, '' when none. */
    git_password_enc: string;
    git_auto_sync: number;
    /** JSON object: configurable spiders' config. */
    config: string;
    retries: number;
    /** Seconds the first automatic retry waits; each further one waits twice as long (migration 2026121020). */
    retry_delay_seconds: import('kysely').Generated<number>;
    /** The endings retried, comma separated: error, abnormal, timed_out. */
    retry_on: import('kysely').Generated<string>;
    /** JSON object {memory_mb, cpu_percent, max_processes}: this spider's task limits; 0 or absent: the default. */
    limits: import('kysely').Generated<string>;
    /** Most of its tasks holding a node's slot at once; 0: no limit (migration 2026120920). */
    max_running: import('kysely').Generated<number>;
    create_ts: number;
    update_ts: number;
  };
  /** Content-addressed: hash = sha256 hex of content; shared between spiders and files. */
  blobs: { hash: string; size: number; content: Buffer; create_ts: number };
  /** path: normalised relative POSIX path; hash null for directories. */
  spider_files: {
    spider_id: string;
    path: string;
    is_dir: number;
    hash: string | null;
    size: number;
    update_ts: number;
  };
  variables: { id: string; key: string; value: string; remark: string; create_ts: number; update_ts: number };
  /** Deleted spiders whose tasks are still being deleted (filled by a trigger on spiders). */
  spider_purges: { spider_id: string; create_ts: number };
  /** Eggs uploaded through the Scrapyd-compatible API, per spider, in upload order (migration 2026120930). */
  scrapyd_versions: { spider_id: string; version: string; egg: Buffer; upload_ts: number };
  /** The Scrapyd job behind a task the Scrapyd-compatible API started; args and settings are JSON objects. */
  scrapyd_jobs: {
    task_id: string;
    spider_id: string;
    job_id: string;
    scrapy_spider: string;
    version: string | null;
    args: string;
    settings: string;
  };
}

export interface TaskTables {
  nodes: {
    id: string;
    name: string;
    description: string;
    type: 'master' | 'worker';
    status: 'online' | 'offline' | 'unavailable';
    enabled: number;
    max_runners: number;
    running: number;
    ip: string;
    system_info: string;
    metrics: string;
    last_seen_ts: number | null;
    create_ts: number;
    update_ts: number;
    /** When the node was last declared offline; null while it is alive. */
    offline_ts: number | null;
  };
  /** A node's own key for the node API, by its hash (migration 2026121000). */
  node_credentials: {
    node_id: string;
    key_hash: string;
    create_ts: number;
    last_used_ts: number | null;
    revoke_ts: number | null;
  };
  node_metrics: { node_id: string; ts: number; cpu: number; mem: number; disk: number; running: number };
  tasks: {
    id: string;
    spider_id: string;
    node_id: string;
    schedule_id: string | null;
    parent_id: string | null;
    type: string;
    status: string;
    run_type: string;
    param: string;
    cmd: string;
    error: string;
    exit_code: number | null;
    pid: number | null;
    result_count: number;
    log_lines: number;
    error_lines: number;
    item_offset: number;
    assign_ts: number | null;
    create_ts: number;
    start_ts: number | null;
    finish_ts: number | null;
    owner_id: string | null;
    /** Queue priority: 1 (highest) to 5 (lowest), 3 by default (migration 2026120810). */
    priority: import('kysely').Generated<number>;
    /** The run's own maximum run time in seconds (0: none); null follows the spider's (migration 2026120811). */
    timeout_seconds: import('kysely').Generated<number | null>;
    /** 1 for a first run, n for its (n - 1)th retry (migration 2026121020). */
    attempt: import('kysely').Generated<number>;
    /** Retries its run asked for; null follows its schedule's or spider's. */
    retries: import('kysely').Generated<number | null>;
    /** A retry waiting for its backoff: dispatch does not start it before this time (ms); null: at once. */
    not_before: import('kysely').Generated<number | null>;
    /** JSON `{ reasons, usual_results }` of a suspicious finish, '' otherwise (migration 2026112231). */
    suspicious: import('kysely').Generated<string>;
  };
  task_logs: { task_id: string; line_no: number; msg: string; is_error: number };
  results: {
    id: import('kysely').Generated<number>;
    collection: string;
    task_id: string;
    spider_id: string;
    dedup_key: string | null;
    data: string;
    create_ts: number;
  };
  /** Who owns a results collection name (the user whose spider first used it). */
  result_collections: { name: string; owner_id: string; create_ts: number };
  deploys: {
    id: string;
    spider_id: string;
    node_id: string;
    task_id: string | null;
    files_total: number;
    files_changed: number;
    bytes: number;
    error: string;
    create_ts: number;
    finish_ts: number;
  };
}

/** Schedules, fire bookkeeping, task retries and notification webhooks (migration 2026112205_schedules). */
export interface ScheduleTables {
  schedules: {
    id: string;
    name: string;
    description: string;
    cron: string;
    spider_id: string;
    run_type: string;
    /** JSON string[] */
    node_ids: string;
    param: string;
    enabled: number;
    status: 'stop' | 'running' | 'error';
    error: string;
    retries: number;
    /** Queue priority of the tasks its fires make (migration 2026120810). */
    priority: import('kysely').Generated<number>;
    /** 1: a fire makes no task while a task of the schedule is pending or running (migration 2026120920). */
    skip_if_running: import('kysely').Generated<number>;
    timezone: string;
    next_run_ts: number | null;
    last_run_ts: number | null;
    active_since_ts: number;
    owner_id: string | null;
    create_ts: number;
    update_ts: number;
  };
  schedule_fires: {
    schedule_id: string;
    fire_ts: number;
    kind: 'cron' | 'catch-up' | 'manual';
    /** JSON string[] */
    task_ids: string;
    error: string;
    master: string;
    create_ts: number;
    /** Why the fire made no task on purpose ('previous_running'), '' otherwise (migration 2026120920). */
    skipped: import('kysely').Generated<string>;
  };
  task_retries: { task_id: string; root_id: string; retry_task_id: string | null; attempt: number; create_ts: number };
  webhooks: {
    id: string;
    name: string;
    url: string;
    /** JSON WebhookEvent[] */
    events: string;
    /** JSON string[]; [] = global */
    spider_ids: string;
    secret: string;
    template: string;
    enabled: number;
    last_status: 'success' | 'failed' | null;
    last_delivery_ts: number | null;
    owner_id: string | null;
    create_ts: number;
    update_ts: number;
  };
  webhook_deliveries: {
    id: string;
    webhook_id: string;
    delivery_id: string;
    event: string;
    attempt: number;
    ok: number;
    http_status: number | null;
    error: string;
    duration_ms: number;
    request_body: string;
    response_body: string;
    create_ts: number;
  };
  /** Webhook deliveries waiting for their next attempt (removed once delivered or out of retries). */
  /** Every stored delivery waiting for its next attempt: webhook deliveries and notification alerts. */
  outbox: {
    id: string;
    kind: 'webhook' | 'notification';
    /** The webhook, or the alert (notify_alerts.id). */
    target_id: string;
    event: string;
    body: string;
    attempt: number;
    due_ts: number;
    lease_ts: number | null;
    create_ts: number;
  };
  notify_channels: {
    id: string;
    name: string;
    kind: string;
    lang: string;
    /** JSON of the fields shown back. */
    config: string;
    /** Encrypted JSON of the write-only fields (passwords, tokens, secret URLs). */
    secrets_enc: string;
    enabled: number;
    create_ts: number;
    update_ts: number;
  };
  notify_rules: {
    id: string;
    name: string;
    event: string;
    threshold: number | null;
    stop_task: number;
    /** JSON string[] each; all empty = every spider. */
    project_ids: string;
    spider_ids: string;
    tags: string;
    channel_ids: string;
    /** 'HH:MM' in the master's time zone, or '' for none. */
    quiet_start: string;
    quiet_end: string;
    dedupe_minutes: number;
    /** Node resource rules: how long readings stay above the threshold before the rule fires; 0 otherwise. */
    for_seconds: number;
    enabled: number;
    create_ts: number;
    update_ts: number;
  };
  notify_claims: { rule_id: string; subject: string; fire_ts: number };
  /** A node resource rule's episode on a node: readings above the threshold since `above_since`; fired or not. */
  notify_node_states: { rule_id: string; node_id: string; above_since: number; fired: number };
  notify_alerts: {
    id: string;
    /** The alerts of one firing (one per channel) share it. */
    firing_id: string;
    rule_id: string;
    rule_name: string;
    event: string;
    subject: string;
    channel_id: string;
    channel_name: string;
    channel_kind: string;
    title: string;
    text: string;
    link: string;
    status: 'pending' | 'delivered' | 'failed' | 'quiet';
    attempts: number;
    answer_status: number | null;
    answer: string;
    error: string;
    create_ts: number;
    update_ts: number;
  };
}

export interface DB
  extends SessionTables, SpiderTables, SitesTables, GitTables, TaskTables, ScheduleTables, EnvironmentTables {}
