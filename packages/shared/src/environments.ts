/**
 * Node environments: languages and packages installed on nodes from the console, as stored jobs a node runs one
 * at a time, and what each node reports it has. Request and response schemas live here once; the server validates
 * and serialises with them and the console derives its types from them.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Id, Str } from './bounds.ts';
import { EnvJobReason } from './env-job-reason.ts';

/** What a job installs: a language with the node's package manager, a Python package (pip), a Node.js one (npm). */
export const ENV_TARGETS = ['language', 'pip', 'npm'] as const;
export type EnvTarget = (typeof ENV_TARGETS)[number];
export const ENV_ACTIONS = ['install', 'uninstall', 'upgrade'] as const;
export type EnvAction = (typeof ENV_ACTIONS)[number];
export const ENV_JOB_STATUSES = ['pending', 'running', 'done', 'failed'] as const;
export type EnvJobStatus = (typeof ENV_JOB_STATUSES)[number];
export const PACKAGE_MANAGERS = ['apt', 'dnf', 'yum', 'apk'] as const;
export type PackageManager = (typeof PACKAGE_MANAGERS)[number];

/**
 * A package, language key or environment name: starts with a letter, digit or `@` (never `-`, so it cannot be
 * read as an option by pip, npm or apt), then letters, digits and `._-+/@`.
 */
export const ENV_PACKAGE_PATTERN = '^[A-Za-z0-9@][A-Za-z0-9._+/@-]*$';
/** A version or version range as pip and npm take it (`1.2`, `>=2,<3`, `^1.0.0`); no spaces. */
export const ENV_VERSION_PATTERN = '^[A-Za-z0-9.*+!<>=~^_,-]*$';
const PkgName = Str(214, { minLength: 1, pattern: ENV_PACKAGE_PATTERN });
const EnvName = Str(64, { minLength: 1, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });
const Url = Str(2000, { pattern: '^(|https?://[^\\s]+)$' });
const Packages = Type.Array(PkgName, { maxItems: 20 });

/** Start a job: on the nodes listed, or on every node (and on nodes that join later) with `all_nodes`. */
export const EnvJobBody = Type.Object({
  target: Type.Union(ENV_TARGETS.map((t) => Type.Literal(t))),
  action: Type.Union(ENV_ACTIONS.map((a) => Type.Literal(a))),
  /** Package name (pip, npm) or language key (language). */
  name: PkgName,
  version: Type.Optional(Str(64, { pattern: ENV_VERSION_PATTERN })),
  /** Python environment of the node (pip only): `default` is the node's own. */
  environment: Type.Optional(EnvName),
  node_ids: Type.Optional(Type.Array(Id, { maxItems: 500 })),
  all_nodes: Type.Optional(Type.Boolean()),
});
export type EnvJobBody = Static<typeof EnvJobBody>;

export const EnvJobQuery = Type.Object({
  node_id: Type.Optional(Id),
  target: Type.Optional(Type.Union(ENV_TARGETS.map((t) => Type.Literal(t)))),
  status: Type.Optional(Type.Union(ENV_JOB_STATUSES.map((s) => Type.Literal(s)))),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
});
export type EnvJobQuery = Static<typeof EnvJobQuery>;

export const EnvJob = Type.Object({
  _id: Type.String(),
  node_id: Type.String(),
  node_name: Type.String(),
  target: Type.String(),
  action: Type.String(),
  name: Type.String(),
  version: Type.String(),
  environment: Type.String(),
  status: Type.String(),
  log: Type.String(),
  error: Type.String(),
  /** Why it failed, when the node's situation is the reason (the console says it in the reader's language). */
  reason: Type.Union([EnvJobReason, Type.Null()]),
  username: Type.String(),
  create_ts: Type.Union([Type.String(), Type.Null()]),
  start_ts: Type.Union([Type.String(), Type.Null()]),
  finish_ts: Type.Union([Type.String(), Type.Null()]),
});
export type EnvJob = Static<typeof EnvJob>;

/** How to find a language on a node and how to install it with each package manager. */
export const EnvLanguageBody = Type.Object({
  key: Str(64, { minLength: 1, pattern: '^[a-z0-9][a-z0-9._-]*$' }),
  name: Str(100, { minLength: 1 }),
  executable: Str(100, { minLength: 1, pattern: '^[A-Za-z0-9][A-Za-z0-9._+-]*$' }),
  version_args: Type.Array(Str(64, { pattern: '^[A-Za-z0-9-][A-Za-z0-9._=-]*$' }), { maxItems: 5 }),
  packages: Type.Object({ apt: Packages, dnf: Packages, yum: Type.Optional(Packages), apk: Packages }),
});
export type EnvLanguageBody = Static<typeof EnvLanguageBody>;
export const EnvLanguage = Type.Intersect([EnvLanguageBody, Type.Object({ builtin: Type.Boolean() })]);
export type EnvLanguage = Static<typeof EnvLanguage>;

const pkg = (apt: string[], dnf: string[], apk: string[]) => ({ apt, dnf, apk });
/** The languages every master knows; administrators add more (stored). */
export const BUILTIN_LANGUAGES: EnvLanguage[] = [
  {
    key: 'python',
    name: 'Python 3',
    executable: 'python3',
    version_args: ['--version'],
    packages: pkg(['python3', 'python3-pip', 'python3-venv'], ['python3', 'python3-pip'], ['python3', 'py3-pip']),
    builtin: true,
  },
  {
    key: 'node',
    name: 'Node.js',
    executable: 'node',
    version_args: ['--version'],
    packages: pkg(['nodejs', 'npm'], ['nodejs', 'npm'], ['nodejs', 'npm']),
    builtin: true,
  },
  {
    key: 'java',
    name: 'Java',
    executable: 'java',
    version_args: ['-version'],
    packages: pkg(['default-jre-headless'], ['java-17-openjdk-headless'], ['openjdk17-jre-headless']),
    builtin: true,
  },
  {
    key: 'go',
    name: 'Go',
    executable: 'go',
    version_args: ['version'],
    packages: pkg(['golang-go'], ['golang'], ['go']),
    builtin: true,
  },
  {
    key: 'php',
    name: 'PHP',
    executable: 'php',
    version_args: ['--version'],
    packages: pkg(['php-cli'], ['php-cli'], ['php82']),
    builtin: true,
  },
  {
    key: 'ruby',
    name: 'Ruby',
    executable: 'ruby',
    version_args: ['--version'],
    packages: pkg(['ruby'], ['ruby'], ['ruby']),
    builtin: true,
  },
];

/**
 * What a node itself needs: the Python it runs spiders (and their environments) with, and the Node.js it runs on.
 * Uninstalling them, or a language that shares their system packages, would break the node: the master refuses it.
 */
export const NODE_RUNTIME_LANGUAGES: readonly string[] = ['python', 'node'];
/** pip packages a node's environments need to install anything else. */
export const NODE_RUNTIME_PIP_PACKAGES: readonly string[] = ['pip'];

/** What a node found of one language. */
export const EnvLanguageState = Type.Object({
  key: Type.String(),
  installed: Type.Boolean(),
  version: Type.String(),
  path: Type.String(),
});
export type EnvLanguageState = Static<typeof EnvLanguageState>;

/**
 * A Python or Node.js package a node has; `system` marks a Python package of the system Python the node's
 * environment is made from (tasks import it, the node's pip neither upgrades it in place nor uninstalls it).
 */
export const InstalledPackage = Type.Object({
  name: Str(214),
  version: Str(128),
  system: Type.Optional(Type.Boolean()),
});
export type InstalledPackage = Static<typeof InstalledPackage>;

/** What a node reports after it starts and after every job: languages found, packages of its environments. */
export const NodeInventoryBody = Type.Object({
  package_manager: Type.Union([...PACKAGE_MANAGERS.map((p) => Type.Literal(p)), Type.Literal('')]),
  languages: Type.Array(Type.Object({ key: Str(64), installed: Type.Boolean(), version: Str(128), path: Str(1000) }), {
    maxItems: 200,
  }),
  pip: Type.Array(InstalledPackage, { maxItems: 5000 }),
  npm: Type.Array(InstalledPackage, { maxItems: 5000 }),
});
export type NodeInventoryBody = Static<typeof NodeInventoryBody>;

export const EnvState = Type.Union([
  Type.Literal('installed'),
  Type.Literal('not-installed'),
  Type.Literal('installing'),
]);
export type EnvState = Static<typeof EnvState>;

/** A node's languages as the Installation tab shows them: state, version, and the job that is under way. */
export const NodeLanguage = Type.Object({
  key: Type.String(),
  name: Type.String(),
  executable: Type.String(),
  builtin: Type.Boolean(),
  state: EnvState,
  version: Type.String(),
  path: Type.String(),
  all_nodes: Type.Boolean(),
});
export type NodeLanguage = Static<typeof NodeLanguage>;

export const NodePackage = Type.Object({
  name: Type.String(),
  version: Type.String(),
  state: EnvState,
  all_nodes: Type.Boolean(),
  /** It comes with the system Python, not from the node's environment. */
  system: Type.Boolean(),
});
export type NodePackage = Static<typeof NodePackage>;

export const NodeEnvironment = Type.Object({
  node_id: Type.String(),
  package_manager: Type.String(),
  reported_ts: Type.Union([Type.String(), Type.Null()]),
  languages: Type.Array(NodeLanguage),
  pip: Type.Array(NodePackage),
  npm: Type.Array(NodePackage),
});
export type NodeEnvironment = Static<typeof NodeEnvironment>;

/** Which node has which version of a package or language: the dependencies view across nodes. */
export const DependencyRow = Type.Object({
  target: Type.String(),
  name: Type.String(),
  all_nodes: Type.Boolean(),
  nodes: Type.Array(
    Type.Object({ node_id: Type.String(), node_name: Type.String(), state: EnvState, version: Type.String() }),
  ),
});
export type DependencyRow = Static<typeof DependencyRow>;

/** Where pip and npm fetch from: mirrors and private indexes. Empty means the tool's default. */
export const EnvSettings = Type.Object({
  pip_index_url: Url,
  pip_extra_index_url: Url,
  npm_registry: Url,
});
export type EnvSettings = Static<typeof EnvSettings>;
export const EMPTY_ENV_SETTINGS: EnvSettings = { pip_index_url: '', pip_extra_index_url: '', npm_registry: '' };

export const PackageSearchQuery = Type.Object({
  target: Type.Union([Type.Literal('pip'), Type.Literal('npm')]),
  q: PkgName,
});
export const PackageSearchHit = Type.Object({ name: Type.String(), versions: Type.Array(Type.String()) });
export type PackageSearchHit = Static<typeof PackageSearchHit>;

/** A job as the node runs it: the command is built on the node from these fields and its package manager. */
export const EnvJobOrder = Type.Object({
  id: Type.String(),
  target: Type.Union(ENV_TARGETS.map((t) => Type.Literal(t))),
  action: Type.Union(ENV_ACTIONS.map((a) => Type.Literal(a))),
  name: Type.String(),
  version: Type.String(),
  environment: Type.String(),
  /** The language entry, for language jobs. */
  language: Type.Union([EnvLanguage, Type.Null()]),
});
export type EnvJobOrder = Static<typeof EnvJobOrder>;

/** Answer of a node's claim: the next job (or none), the index settings and the language catalogue. */
export const EnvClaim = Type.Object({
  job: Type.Union([EnvJobOrder, Type.Null()]),
  settings: EnvSettings,
  /** Which save of the settings these are; a task assignment names the one current when it was sent. */
  settings_version: Type.String(),
  languages: Type.Array(EnvLanguage),
});
export type EnvClaim = Static<typeof EnvClaim>;

/** The index settings as a node reads them before a task, with the save they come from. */
export const NodeEnvSettings = Type.Object({ settings: EnvSettings, settings_version: Type.String() });
export type NodeEnvSettings = Static<typeof NodeEnvSettings>;

export const EnvJobLogBody = Type.Object({ lines: Type.Array(Str(64 * 1024), { maxItems: 10000 }) });
/** The end of a job, with what the node has now (so the states the console shows follow the job at once). */
export const EnvJobFinishBody = Type.Object({
  ok: Type.Boolean(),
  error: Str(64 * 1024),
  inventory: Type.Optional(NodeInventoryBody),
});

/** The answer envelope of a route, for Fastify's response schema (fields not described are not sent). */
export function OkOf<T extends TSchema>(data: T) {
  return Type.Object({
    status: Type.Literal('ok'),
    message: Type.String(),
    data,
    total: Type.Optional(Type.Integer()),
  });
}
