/**
 * Who may call each route of the API, as the route matrix test checks it. Every route the OpenAPI document lists
 * must have a row here and every row must exist there, so a new route cannot ship without an expectation.
 *
 * access:
 * - public: anyone; no caller gets 401/403.
 * - user: any signed-in user; no per-user resource in the path (lists are checked with `hides`).
 * - owner: acts on a resource of user A named by `id`; user B gets 404 as for an unknown id (403 for A's project,
  which everyone sees; or, with `hides`, an answer without A's data), A / A's API token / admin pass.
 * - admin: administrators only; normal users and their API tokens get 403.
 * - node: worker nodes with the node key; every user token, even the admin's, gets 401.
 */
export type Access = 'public' | 'user' | 'owner' | 'admin' | 'node';

/** Fixtures: user A's private spider, its task, schedule, deploy, project and API token; admin's webhook and variable. */
export type Fixture =
  'spider' | 'task' | 'schedule' | 'project' | 'token' | 'deploy' | 'userB' | 'webhook' | 'variable' | 'bogus';

export interface RouteRow {
  access: Access;
  /** Fills `{id}` in the path (default: bogus, an id that does not exist). */
  id?: Fixture;
  /** Request body (JSON), built from the fixtures; default: the smallest body the OpenAPI schema accepts. */
  body?: (f: Record<Fixture, string>, n: number) => unknown;
  query?: (f: Record<Fixture, string>) => Record<string, string>;
  /** For `user` lists: fixture ids of user A that user B must not find in the answer. */
  hides?: Fixture[];
  /** The call ends the caller's session (logout): each allowed call gets a fresh one. */
  spendsSession?: boolean;
  /** Statuses that are a correct answer to an allowed caller besides 2xx–4xx (e.g. 503 when a source is not configured). */
  alsoOk?: number[];
}

const taskIds = (f: Record<Fixture, string>) => ({ ids: [f.task] });
/** A batch naming A's private task: to user B it is an unknown id, left out (a 2xx that names nothing of A's). */
const taskBatch = (): Partial<RouteRow> => ({ body: taskIds, hides: ['task'] });
const owner = (id: Fixture, extra: Partial<RouteRow> = {}): RouteRow => ({ access: 'owner', id, ...extra });
const spider = (extra: Partial<RouteRow> = {}) => owner('spider', extra);
const path = (p: string) => () => ({ path: p });

export const ROUTES: Record<string, RouteRow> = {
  // session and general
  'POST /api/login': { access: 'public', body: () => ({ username: 'matrix_a', password: 'password-a' }) },
  'POST /api/logout': { access: 'user', spendsSession: true },
  'GET /api/me': { access: 'user' },
  'POST /api/me': { access: 'user', body: () => ({ setting: { max_error_log: 100 } }) },
  'PUT /api/users': { access: 'public', body: (_f, n) => ({ username: `signup_${n}`, password: 'password-x' }) },
  'PUT /api/actions': { access: 'user', body: () => ({ type: 'visit' }) },
  'GET /api/actions/summary': { access: 'admin' },
  'GET /api/version': { access: 'public' },
  'GET /api/setting': { access: 'public' },
  'POST /api/setting': { access: 'admin', body: () => ({ enable_tutorial: 'N' }) },
  'GET /api/releases/latest': { access: 'user', alsoOk: [503] },
  'GET /api/docs': { access: 'user' },
  'GET /api/stats/home': { access: 'user' },
  'PUT /api/feedback': { access: 'user', body: () => ({ email: 'a@example.com', wechat: 'a', content: 'hello' }) },
  'GET /api/feedback': { access: 'admin' },

  // spiders and their files
  'GET /api/spiders': { access: 'user', hides: ['spider'] },
  'PUT /api/spiders': { access: 'user', body: (_f, n) => ({ name: `matrix-spider-${n}`, cmd: 'echo ok' }) },
  'GET /api/spiders/{id}': spider(),
  'POST /api/spiders/{id}': spider({ body: () => ({ description: 'changed' }) }),
  'DELETE /api/spiders/{id}': spider(),
  'POST /api/spiders/{id}/upload': spider(),
  'GET /api/spiders/{id}/dir': spider({ query: path('') }),
  'PUT /api/spiders/{id}/dir': spider({ body: () => ({ path: 'newdir' }) }),
  'GET /api/spiders/{id}/file/tree': spider(),
  'GET /api/spiders/{id}/file': spider({ query: path('main.py') }),
  'POST /api/spiders/{id}/file': spider({ body: () => ({ path: 'main.py', content: 'print(1)' }) }),
  'PUT /api/spiders/{id}/file': spider({ body: () => ({ path: 'other.py', content: 'print(2)' }) }),
  'DELETE /api/spiders/{id}/file': spider({ query: path('nothing.py'), body: () => ({ path: 'nothing.py' }) }),
  'POST /api/spiders/{id}/file/rename': spider({ body: () => ({ path: 'nothing.py', new_path: 'nothing2.py' }) }),
  'GET /api/spiders/{id}/tasks': spider({ hides: ['task', 'spider'] }),
  'GET /api/spiders/{id}/schedules': spider({ hides: ['schedule'] }),
  'GET /api/spiders/{id}/stats': spider(),
  'GET /api/spiders/{id}/scrapy-runs': spider(),
  'GET /api/deploys': { access: 'user', hides: ['spider', 'deploy'] },
  'POST /api/spiders-set-projects': spider({ body: (f) => ({ spider_ids: [f.spider], project_id: f.project }) }),

  // scrapy, git, configurable spiders
  'GET /api/spiders/{id}/scrapy/spiders': spider(),
  'PUT /api/spiders/{id}/scrapy/spiders': spider({
    body: () => ({ name: 'demo', domain: 'example.com', template: 'basic' }),
  }),
  'GET /api/spiders/{id}/scrapy/spider/filepath': spider({ query: () => ({ spider_name: 'demo' }) }),
  'GET /api/spiders/{id}/scrapy/settings': spider(),
  'POST /api/spiders/{id}/scrapy/settings': spider({ body: () => [] }),
  'GET /api/spiders/{id}/scrapy/items': spider(),
  'POST /api/spiders/{id}/scrapy/items': spider({ body: () => [] }),
  'GET /api/spiders/{id}/scrapy/pipelines': spider(),
  'POST /api/spiders/{id}/scrapy/pipelines': spider({ body: () => [] }),
  'GET /api/spiders/{id}/git': spider(),
  'POST /api/spiders/{id}/git/sync': spider(),
  'POST /api/spiders/{id}/git/reset': spider(),
  'POST /api/spiders/{id}/git/resolve': spider({ body: () => ({ path: 'main.py', choice: 'mine' }) }),
  'POST /api/spiders/import/github': { access: 'user' },
  'GET /api/config_spiders_templates': { access: 'user' },
  'PUT /api/config_spiders': { access: 'user' },
  'POST /api/config_spiders/{id}/config': spider({ body: () => ({ start_url: 'http://127.0.0.1:9/', stages: [] }) }),
  'POST /api/config_spiders/{id}/spiderfile': spider({ body: () => ({ content: '' }) }),
  'POST /api/spiders/{id}/preview_crawl': spider(),
  'POST /api/spiders/{id}/extract_fields': spider(),
  'POST /api/config_spiders/{id}/convert': spider(),

  // projects
  'GET /api/projects': { access: 'user' },
  'PUT /api/projects': { access: 'user', body: (_f, n) => ({ name: `matrix-project-${n}` }) },
  'GET /api/projects/tags': { access: 'user' },
  'POST /api/projects/{id}': owner('project', { body: () => ({ name: 'renamed' }) }),
  'DELETE /api/projects/{id}': owner('project'),

  // global variables, users, tokens, system settings (admin)
  'GET /api/variables': { access: 'user' },
  'PUT /api/variable': { access: 'admin', body: (_f, n) => ({ key: `matrix_${n}`, value: 'v' }) },
  'DELETE /api/variable/{id}': { access: 'admin', id: 'variable' },
  'GET /api/users': { access: 'admin' },
  'PUT /api/users-add': {
    access: 'admin',
    body: (_f, n) => ({ username: `added_${n}`, password: 'password-x', role: 'admin' }),
  },
  'POST /api/users/{id}': { access: 'admin', id: 'userB', body: () => ({ email: 'b@example.com' }) },
  'DELETE /api/users/{id}': { access: 'admin', id: 'userB' },
  'GET /api/tokens': { access: 'user', hides: ['token'] },
  'PUT /api/tokens': { access: 'user', body: (_f, n) => ({ name: `matrix-token-${n}` }) },
  'DELETE /api/tokens/{id}': owner('token'),
  'GET /api/system/setting': { access: 'admin' },
  'GET /api/system/database': { access: 'admin' },
  'POST /api/system/database': { access: 'admin', body: () => ({ log_retention_days: 0 }) },
  'POST /api/system/database/cleanup': { access: 'admin' },

  // sites (the site directory)
  'GET /api/sites': { access: 'user' },
  'GET /api/sites/get/get_main_category_list': { access: 'user' },
  'GET /api/sites/get/get_category_list': { access: 'user' },
  'POST /api/sites/{id}': { access: 'user' },
  'POST /api/sites/import': { access: 'admin' },
  'GET /api/queryUrl': { access: 'user' },
  'POST /api/insertUrl': { access: 'user' },
  'POST /api/updateUrl': { access: 'user' },
  'GET /api/deleteUrl': { access: 'user' },

  // nodes (user and node-key routes)
  'GET /api/node-api/blobs/{hash}': { access: 'node' },
  'POST /api/node-api/tasks/{id}/logs': { access: 'node', id: 'task', body: () => ({ from: 0, lines: [] }) },
  'POST /api/node-api/tasks/{id}/items': { access: 'node', id: 'task', body: () => ({ from: 0, lines: [] }) },
  'GET /api/nodes': { access: 'user' },
  'GET /api/nodes-join': { access: 'admin' },
  'GET /api/nodes/{id}': { access: 'user' },
  'POST /api/nodes/{id}': { access: 'admin' },
  'DELETE /api/nodes/{id}': { access: 'admin' },
  'GET /api/nodes/{id}/tasks': { access: 'user' },
  'GET /api/nodes/{id}/system': { access: 'user' },
  'GET /api/nodes/{id}/key': { access: 'admin' },
  'POST /api/nodes/{id}/key': { access: 'admin' },
  'DELETE /api/nodes/{id}/key': { access: 'admin' },

  // tasks
  'PUT /api/tasks': spider({ body: (f) => ({ spider_id: f.spider, run_type: 'random' }) }),
  'GET /api/tasks': { access: 'user', hides: ['task'] },
  'DELETE /api/tasks': owner('task', taskBatch()),
  'POST /api/spiders-run': spider({ body: (f) => ({ task_params: [{ spider_id: f.spider }], run_type: 'random' }) }),
  'GET /api/tasks/{id}': owner('task'),
  'DELETE /api/tasks/{id}': owner('task'),
  'POST /api/tasks/{id}/cancel': owner('task'),
  'POST /api/tasks/{id}/priority': owner('task', { body: () => ({ priority: 2 }) }),
  'POST /api/tasks/{id}/restart': owner('task'),
  'POST /api/tasks-cancel': owner('task', taskBatch()),
  'POST /api/tasks-restart': owner('task', taskBatch()),
  'GET /api/tasks/{id}/log': owner('task'),
  'GET /api/tasks/{id}/error-log': owner('task'),
  'GET /api/tasks/{id}/scrapy-stats': owner('task'),
  'GET /api/tasks/{id}/results': owner('task'),
  'GET /api/tasks/{id}/results/download': owner('task'),
  'GET /api/tasks/{id}/stream': owner('task'),
  'GET /api/events': { access: 'user' },

  // schedules
  'GET /api/schedules': { access: 'user', hides: ['schedule'] },
  'PUT /api/schedules': spider({
    body: (f, n) => ({
      name: `matrix-schedule-${n}`,
      cron: '0 0 0 1 1 *',
      spider_id: f.spider,
      timezone: 'UTC',
      enabled: false,
    }),
  }),
  'GET /api/schedules/meta': { access: 'user' },
  'GET /api/schedules/cron': { access: 'user', query: () => ({ cron: '0 0 0 1 1 *' }) },
  'GET /api/schedules/{id}': owner('schedule'),
  'POST /api/schedules/{id}': owner('schedule', {
    body: (f) => ({ name: 'renamed', cron: '0 0 0 1 1 *', spider_id: f.spider, timezone: 'UTC', enabled: false }),
  }),
  'DELETE /api/schedules/{id}': owner('schedule'),
  'POST /api/schedules/{id}/enable': owner('schedule'),
  'POST /api/schedules/{id}/disable': owner('schedule'),
  'POST /api/schedules/{id}/run': owner('schedule'),
  'GET /api/schedules/{id}/tasks': owner('schedule', { hides: ['task', 'spider'] }),
  'GET /api/schedules/{id}/fires': owner('schedule'),

  // webhooks (admin)
  'GET /api/webhooks': { access: 'admin' },
  'PUT /api/webhooks': {
    access: 'admin',
    body: (_f, n) => ({ name: `hook-${n}`, url: 'http://127.0.0.1:9/hook', events: ['task_finished'] }),
  },
  'GET /api/webhooks/meta': { access: 'admin' },
  'GET /api/webhooks/{id}': { access: 'admin', id: 'webhook' },
  'POST /api/webhooks/{id}': { access: 'admin', id: 'webhook', body: () => ({ name: 'renamed' }) },
  'DELETE /api/webhooks/{id}': { access: 'admin', id: 'webhook' },
  'POST /api/webhooks/{id}/test': { access: 'admin' },
  'GET /api/webhooks/{id}/deliveries': { access: 'admin', id: 'webhook' },
  // notifications (admin)
  'GET /api/notifications/channels': { access: 'admin' },
  'PUT /api/notifications/channels': {
    access: 'admin',
    body: (_f, n) => ({ name: `ch-${n}`, kind: 'slack', lang: 'en', secrets: { url: 'http://127.0.0.1:9/hook' } }),
  },
  'POST /api/notifications/channels/{id}': { access: 'admin', body: () => ({ name: 'renamed' }) },
  'DELETE /api/notifications/channels/{id}': { access: 'admin' },
  'POST /api/notifications/channels/{id}/test': { access: 'admin' },
  'GET /api/notifications/rules': { access: 'admin' },
  'PUT /api/notifications/rules': {
    access: 'admin',
    body: () => ({ name: 'r', event: 'task_failed', channel_ids: ['0123456789abcdef01234567'] }),
  },
  'POST /api/notifications/rules/{id}': { access: 'admin', body: () => ({ name: 'renamed' }) },
  'DELETE /api/notifications/rules/{id}': { access: 'admin' },
  'GET /api/notifications/alerts': { access: 'admin' },

  // Prometheus scrape target
  'GET /metrics': { access: 'admin' },
  // results data sources (admin) and where a spider's or task's items go
  'GET /api/data-sources': { access: 'admin' },
  'GET /api/data-sources-choices': { access: 'user' },
  'PUT /api/data-sources': {
    access: 'admin',
    body: (_f, n) => ({ name: `matrix-ds-${n}`, type: 'postgres', host: '127.0.0.1', port: 1, database: 'matrix' }),
  },
  'POST /api/data-sources/{id}': { access: 'admin', body: () => ({ name: 'renamed' }) },
  'DELETE /api/data-sources/{id}': { access: 'admin' },
  'POST /api/data-sources-test': {
    access: 'admin',
    body: () => ({ name: 'matrix', type: 'postgres', host: '127.0.0.1', port: 1, database: 'matrix' }),
  },
  'GET /api/spiders/{id}/data-source': spider(),
  'POST /api/spiders/{id}/data-source': spider({ body: () => ({ data_source_id: '', result_table: '' }) }),
  'GET /api/tasks/{id}/data-source': owner('task'),
  // node environments: everyone sees states, administrators install and read the jobs; nodes report and claim jobs
  'GET /api/nodes/{id}/environment': { access: 'user' },
  'GET /api/env-dependencies': { access: 'user' },
  'GET /api/env-jobs': { access: 'admin' },
  'GET /api/env-jobs/{id}': { access: 'admin' },
  'POST /api/env-jobs': {
    access: 'admin',
    body: () => ({ target: 'pip', action: 'install', name: 'x', node_ids: ['0123456789abcdef01234567'] }),
  },
  'POST /api/env-jobs/{id}/cancel': { access: 'admin' },
  'GET /api/env-languages': { access: 'user' },
  'PUT /api/env-languages': {
    access: 'admin',
    body: (_f, n) => ({
      key: `lang${n}`,
      name: 'L',
      executable: 'lua',
      version_args: ['-v'],
      packages: { apt: [], dnf: [], apk: [] },
    }),
  },
  'DELETE /api/env-languages/{key}': { access: 'admin' },
  'GET /api/env-settings': { access: 'admin' },
  'POST /api/env-settings': {
    access: 'admin',
    body: () => ({ pip_index_url: '', pip_extra_index_url: '', npm_registry: '' }),
  },
  'GET /api/env-packages/search': { access: 'admin' },
  'POST /api/node-api/environment': {
    access: 'node',
    body: () => ({ package_manager: '', languages: [], pip: [], npm: [] }),
  },
  'POST /api/node-api/env-jobs/claim': { access: 'node' },
  'POST /api/node-api/env-settings': { access: 'node' },
  'POST /api/node-api/env-jobs/{id}/log': { access: 'node', body: () => ({ lines: [] }) },
  'POST /api/node-api/env-jobs/{id}/finish': { access: 'node', body: () => ({ ok: true, error: '' }) },

  // installing a node on another machine: the installer and the bundle hold no secret
  'GET /api/node-install/manifest': { access: 'public' },
  'GET /api/node-install/install.sh': { access: 'public' },
  'GET /api/node-install/bundle.tar.gz': { access: 'public' },
};
