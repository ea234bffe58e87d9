import { Type, type Static } from '@sinclair/typebox';
import { Int, Str } from './bounds.ts';
import type { ScrapySettingType } from './scrapy-settings.ts';
import { Nullable } from './responses.ts';

/**
 * Scrapy project calls (`/spiders/{id}/scrapy/…`): spiders, settings, items and pipelines of a project.
 *
 * Error convention: every scrapy call answers with the normal envelope. When the project cannot be read or
 * written (no Scrapy project in the files, a syntax error in settings.py, the Python helper timing out or
 * failing), the answer is HTTP 422 `{status: 'error', message, error}` — `error` holds the Python-side reason
 * (last line of the traceback or the helper's message). Bad input is 400, a missing spider 404. The console keeps
 * `error` per section (settings, items, pipelines, spiders), clears it on the next success, and does not apply
 * the failed result.
 */

const SettingType = Type.Union([
  Type.Literal('string'),
  Type.Literal('number'),
  Type.Literal('boolean'),
  Type.Literal('array'),
  Type.Literal('object'),
]);

/** One setting of settings.py as the master answers it. */
export const ScrapySetting = Type.Object({
  key: Type.String(),
  /** JSON value: string, number, boolean, array or object. */
  value: Type.Unknown(),
  type: SettingType,
  /** True when settings.py computes the value (not a literal); such a setting is shown as its source text. */
  expression: Type.Optional(Type.Boolean()),
});
export type ScrapySetting = Static<typeof ScrapySetting>;

export const ScrapySettingSchema = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
  value: Type.Unknown(),
  type: Type.Union([
    Type.Literal('string'),
    Type.Literal('number'),
    Type.Literal('boolean'),
    Type.Literal('array'),
    Type.Literal('object'),
  ]),
  expression: Type.Optional(Type.Boolean()),
});
/** POST /spiders/{id}/scrapy/settings: the whole list (keys missing from it are removed from settings.py). */
export const ScrapySettingsBody = Type.Array(ScrapySettingSchema, { maxItems: 2000 });

export const ScrapyItem = Type.Object({ name: Type.String(), fields: Type.Array(Type.String()) });
export type ScrapyItem = Static<typeof ScrapyItem>;
const Ident = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' });
export const ScrapyItemSchema = Type.Object({ name: Ident, fields: Type.Array(Ident, { maxItems: 1000 }) });
/** POST /spiders/{id}/scrapy/items: the whole tree (items missing from it are removed from items.py). */
export const ScrapyItemsBody = Type.Array(ScrapyItemSchema, { maxItems: 1000 });

export const ScrapyPipeline = Type.Object({
  /** Dotted class path as used in ITEM_PIPELINES, e.g. `myproject.pipelines.MyprojectPipeline`. */
  name: Type.String(),
  /** Order value in ITEM_PIPELINES, null when not enabled. */
  priority: Nullable(Type.Number()),
  enabled: Type.Boolean(),
  /** The class exists in the project's pipelines module. */
  defined: Type.Boolean(),
});
export type ScrapyPipeline = Static<typeof ScrapyPipeline>;
export const ScrapyPipelineSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 300, pattern: '^[A-Za-z_][A-Za-z0-9_.]*$' }),
  priority: Type.Optional(Type.Union([Int(0, 1000), Type.Null()])),
  enabled: Type.Optional(Type.Boolean()),
});
/** POST /spiders/{id}/scrapy/pipelines: sets ITEM_PIPELINES to the enabled entries; unknown project classes get a stub. */
export const ScrapyPipelinesBody = Type.Array(ScrapyPipelineSchema, { maxItems: 200 });

export const SCRAPY_SPIDER_TEMPLATES = ['basic', 'crawl', 'csvfeed', 'xmlfeed'] as const;
export const ScrapySpiderForm = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
  domain: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9][A-Za-z0-9.:/_-]*$' }),
  template: Type.Optional(Type.Union(SCRAPY_SPIDER_TEMPLATES.map((t) => Type.Literal(t)))),
});
export type ScrapySpiderFormT = Static<typeof ScrapySpiderForm>;

export const ScrapySpiderCreated = Type.Object({
  name: Type.String(),
  /** Path of the generated file inside the spider's files. */
  filepath: Type.String(),
});
export type ScrapySpiderCreated = Static<typeof ScrapySpiderCreated>;

export const ScrapyFilepathQuery = Type.Object({ spider_name: Str(200, { minLength: 1 }) });

/** The pipeline the run command adds (docs/spiders.md "Scrapy spiders"). */
export const CRAWLDECK_SCRAPY_PIPELINE = 'crawldeck.scrapy.CrawldeckPipeline';

/**
 * Converts a value typed in the console into the JSON value of its type; throws an Error with a message for the
 * console when it does not fit (e.g. "abc" for a number).
 */
export function coerceScrapySetting(key: string, type: ScrapySettingType, value: unknown): unknown {
  const bad = (what: string) => new Error(`setting ${key}: ${what}`);
  switch (type) {
    case 'string':
      if (value === null || value === undefined) return '';
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'number': {
      const n =
        typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (!Number.isFinite(n)) throw bad(`"${String(value)}" is not a number`);
      return n;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'True' || value === 1 || value === '1') return true;
      if (value === 'false' || value === 'False' || value === 0 || value === '0') return false;
      throw bad(`"${String(value)}" is not true or false`);
    case 'array':
    case 'object': {
      let v = value;
      if (typeof value === 'string') {
        try {
          v = JSON.parse(value);
        } catch {
          if (type === 'array')
            return value
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean);
          throw bad('is not valid JSON');
        }
      }
      if (type === 'array' && !Array.isArray(v)) throw bad('must be a list');
      if (type === 'object' && (v === null || typeof v !== 'object' || Array.isArray(v)))
        throw bad('must be an object');
      return v;
    }
  }
}

/** Builds the run command of a Scrapy spider (docs/spiders.md "Scrapy spiders"). */
export function scrapyCrawlCommand(spiderName: string, param = ''): string {
  return `scrapy crawl ${spiderName}${param.trim() ? ` ${param.trim()}` : ''}`;
}

/**
 * Our pipeline, added to a `scrapy crawl` command without editing the user's settings: Scrapy merges
 * ITEM_PIPELINES_BASE (empty by default) with the project's ITEM_PIPELINES, so both run. The order value 1000
 * puts it last (after the user's pipelines cleaned the item). Shell-quoted for the node's `shell: true` spawn.
 */
export const SCRAPY_PIPELINE_FLAG = `-s 'ITEM_PIPELINES_BASE={"${CRAWLDECK_SCRAPY_PIPELINE}": 1000}'`;

/**
 * `scrapy crawl NAME …` → the same with SCRAPY_PIPELINE_FLAG appended; other commands, commands that already set
 * ITEM_PIPELINES_BASE, and `optOut` (spider env CRAWLDECK_SCRAPY_PIPELINE=0) are returned unchanged.
 */
export function withCrawldeckPipeline(cmd: string, optOut = false): string {
  if (optOut || !/^\s*scrapy\s+crawl\s/.test(cmd) || cmd.includes('ITEM_PIPELINES_BASE')) return cmd;
  return `${cmd.trimEnd()} ${SCRAPY_PIPELINE_FLAG}`;
}
