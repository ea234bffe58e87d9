import yaml from 'js-yaml';
import { Type } from '@sinclair/typebox';
import { Int, Str } from './bounds.ts';

/**
 * Configurable spiders: a `Spiderfile` (YAML) in the spider's files describes the crawl.
 *
 * ```yaml
 * name: books
 * display_name: Books
 * col: results_books
 * start_url: http://example.com/list
 * start_stage: list
 * engine: cheerio          # the only engine
 * settings:                # ROBOTSTXT_OBEY (default true), DOWNLOAD_DELAY (s, default 0), MAX_PAGES (default 10),
 *   ROBOTSTXT_OBEY: true   # CONCURRENT_REQUESTS (default 1), USER_AGENT, TIMEOUT (s, default 30)
 * stages:
 *   - name: list
 *     is_list: true
 *     list_css: li.product           # or list_xpath
 *     page_css: a.next               # or page_xpath; page_attr default href
 *     fields:
 *       - { name: title, css: h2 }               # text of the element
 *       - { name: url, css: a, attr: href, next_stage: detail }
 *   - name: detail
 *     fields:
 *       - { name: description, xpath: '//p[@class="desc"]' }
 * ```
 * A field with `next_stage` follows its (URL) value to that stage; the detail stage's fields are merged into the
 * row. Without css/xpath a field takes the text of the list element itself (or of the page).
 */

export interface SpiderfileField {
  name: string;
  css?: string;
  xpath?: string;
  /** Attribute to read instead of the text (href, src, …). */
  attr?: string;
  next_stage?: string;
  remark?: string;
}

export interface SpiderfileStage {
  name: string;
  is_list?: boolean;
  list_css?: string;
  list_xpath?: string;
  page_css?: string;
  page_xpath?: string;
  page_attr?: string;
  fields: SpiderfileField[];
}

export interface Spiderfile {
  version?: string;
  name: string;
  display_name?: string;
  col?: string;
  start_url: string;
  start_stage: string;
  engine?: string;
  settings?: Record<string, string | number | boolean>;
  stages: SpiderfileStage[];
}

export const SPIDERFILE_NAME = 'Spiderfile';

export interface SpiderfileProblem {
  /** 1-based line in the YAML text, when known. */
  line?: number;
  message: string;
}

export type SpiderfileParse = { ok: true; spiderfile: Spiderfile } | { ok: false; problems: SpiderfileProblem[] };

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const SETTING_KEYS = ['ROBOTSTXT_OBEY', 'DOWNLOAD_DELAY', 'MAX_PAGES', 'CONCURRENT_REQUESTS', 'USER_AGENT', 'TIMEOUT'];

/** Line numbers of `- name: X` stage entries and `next_stage: X` / `start_stage: X` values, for messages. */
function findLine(text: string | undefined, re: RegExp): number | undefined {
  if (!text) return undefined;
  const lines = text.split('\n');
  const i = lines.findIndex((l) => re.test(l));
  return i >= 0 ? i + 1 : undefined;
}
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Validates a parsed Spiderfile; `text` (the YAML) lets messages carry line numbers. */
export function validateSpiderfile(value: unknown, text?: string): SpiderfileParse {
  const problems: SpiderfileProblem[] = [];
  const add = (message: string, line?: number) => problems.push(line ? { line, message } : { message });
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, problems: [{ message: 'the Spiderfile must be a YAML mapping (name, start_url, stages, …)' }] };
  const v = value as Record<string, unknown>;
  const str = (k: string, required: boolean) => {
    const x = v[k];
    if (x === undefined || x === null || x === '') {
      if (required) add(`"${k}" is required`);
      return;
    }
    if (typeof x !== 'string') add(`"${k}" must be a string`, findLine(text, new RegExp(`^${k}\\s*:`)));
  };
  str('name', true);
  str('display_name', false);
  str('col', false);
  str('start_url', true);
  str('start_stage', false);
  str('engine', false);
  if (typeof v.start_url === 'string' && v.start_url && !/^https?:\/\/[^\s]+$/i.test(v.start_url))
    add('"start_url" must be an http:// or https:// URL', findLine(text, /^start_url\s*:/));
  if (v.engine !== undefined && v.engine !== null && v.engine !== '' && v.engine !== 'cheerio')
    add(`engine "${String(v.engine)}" is not supported (use cheerio)`, findLine(text, /^engine\s*:/));
  if (v.settings !== undefined && v.settings !== null) {
    if (typeof v.settings !== 'object' || Array.isArray(v.settings))
      add('"settings" must be a mapping', findLine(text, /^settings\s*:/));
    else {
      for (const [k, x] of Object.entries(v.settings as Record<string, unknown>)) {
        if (!SETTING_KEYS.includes(k))
          add(
            `unknown setting "${k}" (known: ${SETTING_KEYS.join(', ')})`,
            findLine(text, new RegExp(`^\\s+${esc(k)}\\s*:`)),
          );
        else if (typeof x === 'object' && x !== null)
          add(`setting "${k}" must be a single value`, findLine(text, new RegExp(`^\\s+${esc(k)}\\s*:`)));
      }
    }
  }
  const stages = v.stages;
  if (!Array.isArray(stages) || stages.length === 0) {
    add('"stages" must be a non-empty list', findLine(text, /^stages\s*:/));
    return { ok: false, problems };
  }
  const names = new Set<string>();
  stages.forEach((s, i) => {
    const where = `stage ${i + 1}`;
    if (!s || typeof s !== 'object' || Array.isArray(s)) return add(`${where} must be a mapping`);
    const st = s as Record<string, unknown>;
    if (typeof st.name !== 'string' || !NAME.test(st.name))
      return add(`${where}: "name" is required (letters, digits, _ . -)`);
    const line = findLine(text, new RegExp(`^\\s*-?\\s*name\\s*:\\s*['"]?${esc(st.name)}['"]?\\s*$`));
    if (names.has(st.name)) add(`stage "${st.name}" is defined twice`, line);
    names.add(st.name);
    for (const k of ['list_css', 'list_xpath', 'page_css', 'page_xpath', 'page_attr']) {
      if (st[k] !== undefined && st[k] !== null && typeof st[k] !== 'string')
        add(`stage "${st.name}": "${k}" must be a string`, line);
    }
    if (st.list_css && st.list_xpath) add(`stage "${st.name}": give list_css or list_xpath, not both`, line);
    if (st.page_css && st.page_xpath) add(`stage "${st.name}": give page_css or page_xpath, not both`, line);
    if (st.is_list && !st.list_css && !st.list_xpath)
      add(`stage "${st.name}" is a list stage: list_css or list_xpath is required`, line);
    if (!Array.isArray(st.fields) || st.fields.length === 0)
      return add(`stage "${st.name}": "fields" must be a non-empty list`, line);
    const fieldNames = new Set<string>();
    st.fields.forEach((f, j) => {
      if (!f || typeof f !== 'object' || Array.isArray(f))
        return add(`stage "${st.name}" field ${j + 1} must be a mapping`, line);
      const fd = f as Record<string, unknown>;
      if (typeof fd.name !== 'string' || !fd.name.trim())
        return add(`stage "${st.name}" field ${j + 1}: "name" is required`, line);
      if (fieldNames.has(fd.name)) add(`stage "${st.name}": field "${fd.name}" is defined twice`, line);
      fieldNames.add(fd.name);
      for (const k of ['css', 'xpath', 'attr', 'next_stage', 'remark']) {
        if (fd[k] !== undefined && fd[k] !== null && typeof fd[k] !== 'string')
          add(`field "${fd.name}": "${k}" must be a string`, line);
      }
      if (fd.css && fd.xpath) add(`field "${fd.name}": give css or xpath, not both`, line);
    });
  });
  // references to stages
  const startStage = (v.start_stage as string) || (stages[0] as { name?: string })?.name;
  if (typeof v.start_stage === 'string' && v.start_stage && !names.has(v.start_stage))
    add(
      `start_stage "${v.start_stage}" is not a stage (stages: ${[...names].join(', ')})`,
      findLine(text, /^start_stage\s*:/),
    );
  for (const s of stages as SpiderfileStage[]) {
    for (const f of s?.fields ?? []) {
      if (f && typeof f.next_stage === 'string' && f.next_stage && !names.has(f.next_stage)) {
        add(
          `field "${f.name}" of stage "${s.name}": next_stage "${f.next_stage}" is not a stage (stages: ${[...names].join(', ')})`,
          findLine(text, new RegExp(`next_stage\\s*:\\s*['"]?${esc(f.next_stage)}['"]?`)),
        );
      }
      if (f && f.next_stage === s.name) add(`field "${f.name}": next_stage must not be its own stage "${s.name}"`);
    }
  }
  if (problems.length) return { ok: false, problems };
  const sf = { ...(v as unknown as Spiderfile), start_stage: startStage as string };
  return { ok: true, spiderfile: sf };
}

/** Parses and validates Spiderfile text; YAML syntax errors come back with their line. */
export function parseSpiderfile(text: string): SpiderfileParse {
  let value: unknown;
  try {
    value = yaml.load(text, { schema: yaml.JSON_SCHEMA });
  } catch (err) {
    const e = err as { mark?: { line: number }; reason?: string; message: string };
    return {
      ok: false,
      problems: [
        {
          line: e.mark ? e.mark.line + 1 : undefined,
          message: `invalid YAML: ${e.reason ?? e.message.split('\n')[0]}`,
        },
      ],
    };
  }
  return validateSpiderfile(value, text);
}

export function formatProblems(problems: SpiderfileProblem[]): string {
  return problems.map((p) => (p.line ? `line ${p.line}: ${p.message}` : p.message)).join('; ');
}

/** Spiderfile → YAML text (stable key order, no anchors). */
export function dumpSpiderfile(sf: Spiderfile): string {
  const clean = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined && x !== '' && x !== null));
  const ordered = clean({
    version: sf.version,
    name: sf.name,
    display_name: sf.display_name,
    col: sf.col,
    engine: sf.engine,
    start_url: sf.start_url,
    start_stage: sf.start_stage,
    settings: sf.settings && Object.keys(sf.settings).length ? sf.settings : undefined,
    stages: sf.stages.map((s) =>
      clean({
        name: s.name,
        is_list: s.is_list ? true : undefined,
        list_css: s.list_css,
        list_xpath: s.list_xpath,
        page_css: s.page_css,
        page_xpath: s.page_xpath,
        page_attr: s.page_attr,
        fields: s.fields.map((f) =>
          clean({ name: f.name, css: f.css, xpath: f.xpath, attr: f.attr, next_stage: f.next_stage, remark: f.remark }),
        ),
      }),
    ),
  });
  return yaml.dump(ordered, { noRefs: true, lineWidth: 120, sortKeys: false });
}

export interface ConfigSpiderTemplate {
  name: string;
  title: string;
  description: string;
  spiderfile: Spiderfile;
}

/** GET /config_spiders_templates. */
export const CONFIG_SPIDER_TEMPLATES: ConfigSpiderTemplate[] = [
  {
    name: 'list',
    title: 'List page',
    description: 'One page with repeated elements; one row per element.',
    spiderfile: {
      name: 'list',
      start_url: 'http://example.com/',
      start_stage: 'list',
      engine: 'cheerio',
      settings: { ROBOTSTXT_OBEY: true },
      stages: [
        {
          name: 'list',
          is_list: true,
          list_css: 'ul > li',
          fields: [
            { name: 'title', css: 'a' },
            { name: 'url', css: 'a', attr: 'href' },
          ],
        },
      ],
    },
  },
  {
    name: 'list-detail',
    title: 'List + detail',
    description: 'A list page whose links lead to detail pages; fields of both are merged into one row.',
    spiderfile: {
      name: 'list-detail',
      start_url: 'http://example.com/',
      start_stage: 'list',
      engine: 'cheerio',
      settings: { ROBOTSTXT_OBEY: true, DOWNLOAD_DELAY: 0.5 },
      stages: [
        {
          name: 'list',
          is_list: true,
          list_css: 'ul > li',
          fields: [
            { name: 'title', css: 'a' },
            { name: 'url', css: 'a', attr: 'href', next_stage: 'detail' },
          ],
        },
        { name: 'detail', fields: [{ name: 'content', css: 'body' }] },
      ],
    },
  },
  {
    name: 'paginated-list',
    title: 'Paginated list',
    description: 'A list followed through its "next page" link up to MAX_PAGES pages.',
    spiderfile: {
      name: 'paginated-list',
      start_url: 'http://example.com/',
      start_stage: 'list',
      engine: 'cheerio',
      settings: { ROBOTSTXT_OBEY: true, MAX_PAGES: 10, DOWNLOAD_DELAY: 0.5 },
      stages: [
        {
          name: 'list',
          is_list: true,
          list_css: 'ul > li',
          page_css: 'a.next',
          page_attr: 'href',
          fields: [
            { name: 'title', css: 'a' },
            { name: 'url', css: 'a', attr: 'href' },
          ],
        },
      ],
    },
  },
];

// ---- API bodies ----

const FieldSchema = Type.Object({
  name: Str(200, { minLength: 1 }),
  css: Type.Optional(Str(1000)),
  xpath: Type.Optional(Str(1000)),
  attr: Type.Optional(Str(200)),
  next_stage: Type.Optional(Str(200)),
  remark: Type.Optional(Str(1000)),
});
const StageSchema = Type.Object({
  name: Str(200, { minLength: 1 }),
  is_list: Type.Optional(Type.Boolean()),
  list_css: Type.Optional(Str(1000)),
  list_xpath: Type.Optional(Str(1000)),
  page_css: Type.Optional(Str(1000)),
  page_xpath: Type.Optional(Str(1000)),
  page_attr: Type.Optional(Str(200)),
  fields: Type.Array(FieldSchema, { maxItems: 200 }),
});
/** POST /config_spiders/{id}/config: the Rules form (validated like the text). */
export const SpiderfileSchema = Type.Object({
  version: Type.Optional(Str(50)),
  name: Type.Optional(Str(200)),
  display_name: Type.Optional(Str(200)),
  col: Type.Optional(Str(200)),
  start_url: Str(4000),
  start_stage: Type.Optional(Str(200)),
  engine: Type.Optional(Str(50)),
  // Unknown, not a union: with the server's coerceTypes a String-first union turned true/10 into 'true'/'10';
  // validateSpiderfile refuses non-scalar values.
  settings: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100 })),
  stages: Type.Array(StageSchema, { maxItems: 50 }),
});
export const SpiderfileTextBody = Type.Object({ content: Str(1024 * 1024) });
export const CreateConfigSpiderBody = Type.Object({
  name: Str(200, { minLength: 1 }),
  display_name: Type.Optional(Str(200)),
  col: Type.Optional(Str(200)),
  template: Type.Optional(Str(50)),
  start_url: Type.Optional(Str(4000)),
  project_id: Type.Optional(Type.Union([Str(24), Type.Null()])),
  is_public: Type.Optional(Type.Boolean()),
});
export const PreviewBody = Type.Object({
  /** Rows to return (default 10, at most 100). */
  items: Type.Optional(Int(1, 100)),
  /** Preview this Spiderfile instead of the stored one (the Rules form before saving). */
  spiderfile: Type.Optional(Type.Unknown()),
});
export const ExtractFieldsBody = Type.Object({ url: Type.Optional(Str(4000)) });

export interface ExtractFieldsResult {
  list_css: string;
  /** How many elements the list selector matches on the page. */
  count: number;
  fields: SpiderfileField[];
  page_css?: string;
}

/** Command of a configurable spider's tasks (docs/spiders.md). */
export const CONFIG_SPIDER_CMD = 'crawldeck-config-spider Spiderfile';

export * from './config-spider-answers.ts';
