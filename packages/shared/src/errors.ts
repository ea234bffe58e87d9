/**
 * Every error the API answers carries a stable `code` from this catalogue, with `params` to fill its text. The
 * English text here is the `error` of the answer; the console shows its own translation of `errors:<code>` (with
 * the same params) and falls back to `error`. Codes are never renamed: add new ones instead.
 */
export const ERROR_CATALOGUE = {
  // Generic, by HTTP status: the `message` param holds the server's English reason.
  'request.invalid': '{{message}}',
  'request.unauthorized': '{{message}}',
  'request.forbidden': '{{message}}',
  'request.not_found': '{{message}}',
  'request.conflict': '{{message}}',
  'request.gone': '{{message}}',
  'request.too_large': '{{message}}',
  'request.unsupported': '{{message}}',
  'request.unprocessable': '{{message}}',
  'request.too_many': '{{message}}',
  'request.failed': '{{message}}',
  'request.unavailable': '{{message}}',
  'route.not_found': 'no such route: {{method}} {{path}}',
  internal: 'internal server error',
  'store.unavailable': 'the database is unavailable (restarting or unreachable); try again in a moment',

  // Validation of a request against its schema: `where` is body, query or path; `field` the dotted field name.
  'validation.required': 'invalid {{where}}: the field "{{field}}" is required',
  'validation.type': 'invalid {{where}} field "{{field}}": must be {{type}}',
  'validation.enum': 'invalid {{where}} field "{{field}}": must be one of {{allowed}}',
  'validation.min_length': 'invalid {{where}} field "{{field}}": must be at least {{limit}} characters long',
  'validation.max_length': 'invalid {{where}} field "{{field}}": must be at most {{limit}} characters long',
  'validation.minimum': 'invalid {{where}} field "{{field}}": must be at least {{limit}}',
  'validation.maximum': 'invalid {{where}} field "{{field}}": must be at most {{limit}}',
  'validation.min_items': 'invalid {{where}} field "{{field}}": must have at least {{limit}} entries',
  'validation.max_items': 'invalid {{where}} field "{{field}}": must have at most {{limit}} entries',
  'validation.unique_items': 'invalid {{where}} field "{{field}}": must not repeat an entry',
  'validation.pattern': 'invalid {{where}} field "{{field}}": has an invalid format',
  'validation.format': 'invalid {{where}} field "{{field}}": must be a valid {{format}}',
  'validation.no_nul': 'invalid {{where}} field "{{field}}": must not contain the NUL character',
  'validation.finite': 'invalid {{where}} field "{{field}}": must be a finite number',
  'validation.invalid': 'invalid {{where}} field "{{field}}"',

  // Sign-in and access.
  'auth.unauthorized': 'unauthorized: sign in or send a valid token',
  'auth.bad_credentials': 'username or password is incorrect',
  'auth.bad_node_key': 'unauthorized: bad node key',
  'auth.forbidden': 'forbidden: your role may not do this',
  'auth.admin_only': 'forbidden: administrators only',
  'auth.signup_closed': 'sign-up is closed; ask an administrator for an account',
  'auth.current_password_wrong': 'current password is incorrect',
  'auth.current_password_required': 'current_password is required to change the password',
  'auth.task_private': 'forbidden: this task belongs to a private spider of another user',
  'auth.task_owner_only': 'forbidden: only the owner of a task or an administrator may change it',
  'auth.project_owner_only': 'forbidden: only the owner or an administrator may change this project',
  'auth.spider_move_owner_only': 'forbidden: only the owner or an administrator may move a spider',

  // Not found, per kind of thing (`not_found.<kind>`; kinds not listed answer request.not_found).
  'not_found.spider': 'spider not found',
  'not_found.task': 'task not found',
  'not_found.node': 'node not found',
  'not_found.project': 'project not found',
  'not_found.schedule': 'schedule not found',
  'not_found.user': 'user not found',
  'not_found.variable': 'variable not found',
  'not_found.webhook': 'webhook not found',
  'not_found.site': 'site not found',
  'not_found.token': 'API token not found',
  'not_found.collected_url': 'collected URL not found',
  'not_found.file': 'file not found',

  // Users.
  'user.exists': 'username already exists',
  'user.username_invalid': 'Please enter the correct username',
  'user.password_short': 'password must be at least 5 characters',
  'user.email_invalid': 'e-mail format is invalid',
  'user.email_required': 'e-mail is required',

  // Spiders, tasks, nodes, schedules.
  'spider.name_required': 'spider name is required',
  'spider.name_invalid': 'spider name must not contain slashes or control characters',
  'spider.dedup_field_required': 'dedupe field is required when dedupe is on',
  'spider.zip_required': 'a zip file is required in the form field "file"',
  'spider.zip_invalid': 'the upload is not a valid zip file',
  'spider.zip_empty': 'the zip holds no files',
  'spider.binary_file': 'binary file cannot be opened as text',
  'spider.no_git_url': 'this spider has no Git URL; set one in its Git settings first',
  'spider.no_command':
    'this spider has no command to run; set one in its Overview tab (e.g. "python3 main.py" or "scrapy crawl NAME")',
  'spider.scrapy_name_required':
    'choose the Scrapy spider to run: its name goes first in the parameters (e.g. "quotes -a tag=books")',
  'task.no_online_node': 'no online node to run on',
  'task.selected_nodes_required': 'Select at least one node for the run type "selected-nodes"',
  'task.gone': 'task gone',
  'node.online': 'node is online: stop its node service first',
  'project.name_required': 'project name is required',
  'schedule.name_required': 'A schedule name is required',
  'schedule.spider_deleted': 'Not Found Spider: the spider of this schedule was deleted',
  'schedule.no_command':
    'this schedule could never start a task: its spider has no command to run; set one in its Overview tab',
  'schedule.scrapy_name_required':
    'this schedule could never start a task: put the name of the Scrapy spider to run first in its parameters (e.g. "quotes -a tag=books")',
  'token.name_required': 'a token needs a name',
  'release.not_configured': 'no release source is configured (CRAWLDECK_RELEASES_URL)',
  'datasource.password_elsewhere':
    'the stored password is only sent to the stored host, port and user: enter the password to test other settings',
  'datasource.used_by_tasks':
    '{{count}} tasks keep their results in this data source: delete those tasks first, or their results could no longer be read',
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export type ErrorParams = Record<string, string | number>;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The catalogue's text of `code` with `{{name}}` replaced by its param (a missing param stays visible). */
export function errorText(code: ErrorCode, params: ErrorParams = {}): string {
  return ERROR_CATALOGUE[code].replace(/\{\{(\w+)\}\}/g, (all, name: string) =>
    params[name] === undefined ? all : String(params[name]),
  );
}

const GENERIC_BY_STATUS: Record<number, ErrorCode> = {
  400: 'request.invalid',
  401: 'request.unauthorized',
  403: 'request.forbidden',
  404: 'request.not_found',
  409: 'request.conflict',
  410: 'request.gone',
  413: 'request.too_large',
  415: 'request.unsupported',
  422: 'request.unprocessable',
  429: 'request.too_many',
  502: 'request.failed',
  503: 'request.unavailable',
};

/** Texts without params, so a thrown English message finds its code. */
const CODE_BY_TEXT = new Map<string, ErrorCode>(
  ERROR_CODES.filter((c) => !ERROR_CATALOGUE[c].includes('{{')).map((c) => [ERROR_CATALOGUE[c], c]),
);

/**
 * The code of an error the server raised with English text only: the catalogue entry with exactly this text,
 * else the generic code of its status with the text as `message`.
 */
export function codeForText(status: number, text: string): { code: ErrorCode; params?: ErrorParams } {
  const known = CODE_BY_TEXT.get(text);
  if (known) return { code: known };
  return {
    code: GENERIC_BY_STATUS[status] ?? (status >= 500 ? 'request.failed' : 'request.invalid'),
    params: { message: text },
  };
}

/** `not_found.<kind>` of a thing named in English ("collected URL" → not_found.collected_url), if catalogued. */
export function notFoundCode(what: string): ErrorCode | undefined {
  const code = `not_found.${what.toLowerCase().replace(/^api /, '').replace(/\W+/g, '_')}`;
  return code in ERROR_CATALOGUE ? (code as ErrorCode) : undefined;
}
