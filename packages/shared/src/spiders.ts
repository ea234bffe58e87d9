import { Type, type Static } from '@sinclair/typebox';
import { Int, Str } from './bounds.ts';
import { Envelope, Nullable, pageFields } from './paging.ts';
import {
  MAX_PAGE_SIZE,
  MAX_RUNNING_MAX,
  RETRY_DELAY_MAX_SECONDS,
  RETRY_MAX,
  RETRY_ON,
  TIMEOUT_MAX_SECONDS,
} from './constants.ts';

/**
 * Spiders and their files: what a request may carry and what the answer holds.
 * Booleans are real booleans in the API (0/1 in the store); the server also accepts 0/1 and "true"/"false".
 */
export const SPIDER_TYPES = ['customized', 'configurable'] as const;
export type SpiderType = (typeof SPIDER_TYPES)[number];
export const DEDUP_METHODS = ['ignore', 'overwrite'] as const;
export type DedupMethod = (typeof DEDUP_METHODS)[number];

/** Environment variable names (spider envs and global variable keys). */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
export function isValidEnvName(name: string): boolean {
  return new RegExp(ENV_NAME_PATTERN).test(name);
}

export const SpiderEnv = Type.Object({
  name: Str(255, { minLength: 1 }),
  value: Str(65536),
});
export type SpiderEnv = Static<typeof SpiderEnv>;

const Bool = Type.Boolean();

/**
 * A spider's own limits for each of its tasks: memory in MiB, CPU in percent of one core (200 = two cores),
 * processes at once. 0 takes the default the master sends with every task (Settings of the master, or the node's).
 * `timeout_seconds` is the longest a task may run before its node stops it ("timed out"); 0 lets it run as long as
 * it takes, and a run may choose its own.
 */
export const SpiderLimits = Type.Object({
  memory_mb: Int(0, 1_048_576),
  cpu_percent: Int(0, 25_600),
  max_processes: Int(0, 4_194_304),
  timeout_seconds: Int(0, TIMEOUT_MAX_SECONDS),
});
export type SpiderLimits = Static<typeof SpiderLimits>;

const RetryOnList = Type.Array(Type.Union(RETRY_ON.map((r) => Type.Literal(r))), {
  maxItems: RETRY_ON.length,
  uniqueItems: true,
});

/** Every editable field; PUT /spiders needs `name`, POST /spiders/{id} takes any subset. */
const spiderFields = {
  name: Str(100, { minLength: 1 }),
  display_name: Str(200),
  type: Type.Union(SPIDER_TYPES.map((t) => Type.Literal(t))),
  cmd: Str(4000),
  col: Str(200),
  src: Str(1000),
  /** null, '' or the all-zero id unassign the spider. */
  project_id: Type.Union([Str(24), Type.Null()]),
  is_public: Bool,
  is_scrapy: Bool,
  is_dedup: Bool,
  dedup_field: Str(200),
  dedup_method: Type.Union(DEDUP_METHODS.map((t) => Type.Literal(t))),
  envs: Type.Array(SpiderEnv, { maxItems: 500 }),
  git_url: Str(2000),
  git_branch: Str(255),
  git_username: Str(255),
  /** Write-only. A non-empty string sets it, null clears it, '' or absent keeps the stored one. */
  git_password: Type.Union([Str(1000), Type.Null()]),
  git_auto_sync: Bool,
  config: Type.Record(Type.String(), Type.Unknown(), { maxProperties: 1000 }),
  retries: Int(0, RETRY_MAX),
  /** Seconds its first automatic retry waits; each further one waits twice as long, at most an hour. */
  retry_delay_seconds: Int(1, RETRY_DELAY_MAX_SECONDS),
  /** The endings its automatic retries repeat; none: no retry. */
  retry_on: RetryOnList,
  /** Most of its tasks claimed or running at once (0: no limit); the others wait in the queue. */
  max_running: Int(0, MAX_RUNNING_MAX),
  /** Absent limits keep the stored ones. */
  limits: Type.Partial(SpiderLimits),
};

const { name: nameField, ...optionalFields } = spiderFields;
export const CreateSpiderBody = Type.Composite([
  Type.Object({ name: nameField }),
  Type.Partial(Type.Object(optionalFields)),
]);
export type CreateSpiderBody = Static<typeof CreateSpiderBody>;

export const UpdateSpiderBody = Type.Partial(Type.Object(spiderFields));
export type UpdateSpiderBody = Static<typeof UpdateSpiderBody>;

export const SPIDER_SORT_KEYS = [
  'name',
  'display_name',
  'type',
  'create_ts',
  'update_ts',
  'project_id',
  'col',
] as const;

export const SpiderListQuery = Type.Object({
  ...pageFields(MAX_PAGE_SIZE),
  /** Case-insensitive substring of name or display_name. */
  keyword: Type.Optional(Str(200)),
  /** A project id; the all-zero id (or "none") lists spiders without a project. */
  project_id: Type.Optional(Str(24)),
  type: Type.Optional(Str(20)),
  sort_key: Type.Optional(Str(40)),
  /** asc | desc (ascending | descending also accepted). Default: newest first. */
  sort_direction: Type.Optional(Str(20)),
});
export type SpiderListQuery = Static<typeof SpiderListQuery>;

// ---- files ----

export const PathQuery = Type.Object({ path: Type.Optional(Str(4096)) });
export type PathQuery = Static<typeof PathQuery>;
export const FileQuery = Type.Object({
  path: Str(4096),
  /** 1: download the bytes (any file, binary too) instead of the JSON text envelope. */
  raw: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')])),
});
export type FileQuery = Static<typeof FileQuery>;
export const PathBody = Type.Object({ path: Str(4096) });
export type PathBody = Static<typeof PathBody>;
export const SaveFileBody = Type.Object({ path: Str(4096), content: Type.String({ maxLength: 16 * 1024 * 1024 }) }); // stored as bytes: any character, NUL too
export type SaveFileBody = Static<typeof SaveFileBody>;
export const RenameFileBody = Type.Object({ path: Str(4096), new_path: Str(4096) });
export type RenameFileBody = Static<typeof RenameFileBody>;

const Ts = Nullable(Type.String({ description: 'ISO 8601 time' }));

/** A spider as the API shows it: booleans, parsed JSON, ISO times; never the Git password. */
export const Spider = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  display_name: Type.String(),
  type: Type.Union(SPIDER_TYPES.map((t) => Type.Literal(t))),
  cmd: Type.String(),
  col: Type.String(),
  src: Type.String(),
  project_id: Nullable(Type.String()),
  is_public: Type.Boolean(),
  owner_id: Type.String(),
  /** Username of the owner ('' when not loaded). */
  owner: Type.String(),
  is_scrapy: Type.Boolean(),
  is_dedup: Type.Boolean(),
  dedup_field: Type.String(),
  dedup_method: Type.Union(DEDUP_METHODS.map((t) => Type.Literal(t))),
  envs: Type.Array(Type.Object({ name: Type.String(), value: Type.String() })),
  git_url: Type.String(),
  git_branch: Type.String(),
  git_username: Type.String(),
  /** The password itself is never returned. */
  git_password_set: Type.Boolean(),
  git_auto_sync: Type.Boolean(),
  config: Type.Record(Type.String(), Type.Unknown()),
  retries: Type.Number(),
  retry_delay_seconds: Type.Number(),
  retry_on: Type.Array(Type.Union(RETRY_ON.map((r) => Type.Literal(r)))),
  /** Most of its tasks claimed or running at once; 0: no limit. */
  max_running: Type.Number(),
  limits: SpiderLimits,
  create_ts: Ts,
  update_ts: Ts,
});
export type Spider = Static<typeof Spider>;

/** The stored limits of a spider, every one present (0 where none is set). */
export function spiderLimitsOf(stored: string | Partial<SpiderLimits> | null | undefined): SpiderLimits {
  let v: Partial<SpiderLimits> = {};
  if (typeof stored === 'string') {
    try {
      v = (JSON.parse(stored) as Partial<SpiderLimits> | null) ?? {};
    } catch {
      v = {};
    }
  } else if (stored) v = stored;
  const n = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) && x > 0 ? x : 0);
  return {
    memory_mb: n(v.memory_mb),
    cpu_percent: n(v.cpu_percent),
    max_processes: n(v.max_processes),
    timeout_seconds: n(v.timeout_seconds),
  };
}

/** GET /spiders: `data: {list, total}` and a top-level `total`. */
export const SpiderList = Type.Object({ list: Type.Array(Spider), total: Type.Number() });
export type SpiderList = Static<typeof SpiderList>;

/** POST /spiders/{id}/upload (and `upload` of a multipart PUT /spiders). */
export const UploadResult = Type.Object({
  files: Type.Number(),
  /** When the zip held a single top-level folder, its name: its contents were moved to the root. */
  stripped_folder: Nullable(Type.String()),
  is_scrapy: Type.Boolean(),
  /** The spider's command after the upload: guessed from the files when it had none ('' when nothing fits). */
  cmd: Type.Optional(Type.String()),
});
export type UploadResult = Static<typeof UploadResult>;

/** PUT /spiders: the new spider, with what its zip brought when one was uploaded. */
export const CreatedSpider = Type.Composite([Spider, Type.Object({ upload: Type.Optional(UploadResult) })]);
export type CreatedSpider = Static<typeof CreatedSpider>;

/** GET /spiders/{id}/dir: directories first, then names descending. */
export const FileEntry = Type.Object({
  name: Type.String(),
  /** Relative POSIX path from the spider root, no leading slash. */
  path: Type.String(),
  is_dir: Type.Boolean(),
  size: Type.Number(),
  update_ts: Ts,
});
export type FileEntry = Static<typeof FileEntry>;

/** GET /spiders/{id}/file/tree: the root node (name '' and path '') with nested children, same order. */
export const FileTreeNode = Type.Recursive(
  (Node) => Type.Composite([FileEntry, Type.Object({ children: Type.Optional(Type.Array(Node)) })]),
  { $id: 'FileTreeNode' },
);
export type FileTreeNode = Static<typeof FileTreeNode>;

export const SpiderResponse = Envelope(Spider);
export const SpiderListResponse = Envelope(SpiderList);
export const CreatedSpiderResponse = Envelope(CreatedSpider);
export const UploadResponse = Envelope(UploadResult);
export const FileEntriesResponse = Envelope(Type.Array(FileEntry));
export const FileTreeResponse = Envelope(FileTreeNode);
/** GET /spiders/{id}/file: the text of the file (raw=1 answers with the bytes instead). */
export const FileTextResponse = Envelope(Type.String());
export const PathsDeletedResponse = Envelope(Type.Object({ deleted: Type.Number() }));
