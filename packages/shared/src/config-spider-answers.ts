import { Type, type Static } from '@sinclair/typebox';

/** What the configurable-spider calls answer: Spiderfiles, templates, previews, field suggestions, conversions. */

const FieldOut = Type.Object({
  name: Type.String(),
  css: Type.Optional(Type.String()),
  xpath: Type.Optional(Type.String()),
  attr: Type.Optional(Type.String()),
  next_stage: Type.Optional(Type.String()),
  remark: Type.Optional(Type.String()),
});
const StageOut = Type.Object({
  name: Type.String(),
  is_list: Type.Optional(Type.Boolean()),
  list_css: Type.Optional(Type.String()),
  list_xpath: Type.Optional(Type.String()),
  page_css: Type.Optional(Type.String()),
  page_xpath: Type.Optional(Type.String()),
  page_attr: Type.Optional(Type.String()),
  fields: Type.Array(FieldOut),
});
/** A Spiderfile as the master answers it (the same fields as the YAML). */
export const SpiderfileOut = Type.Object({
  version: Type.Optional(Type.String()),
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  col: Type.Optional(Type.String()),
  start_url: Type.String(),
  start_stage: Type.String(),
  engine: Type.Optional(Type.String()),
  settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  stages: Type.Array(StageOut),
});

/** GET /config_spiders_templates. */
export const ConfigSpiderTemplateOut = Type.Object({
  name: Type.String(),
  title: Type.String(),
  description: Type.String(),
  spiderfile: SpiderfileOut,
});

/** A saved Spiderfile: the object and its text as stored in the spider's files. */
export const SavedSpiderfile = Type.Object({ spiderfile: SpiderfileOut, content: Type.String() });
export type SavedSpiderfile = Static<typeof SavedSpiderfile>;

/** POST /spiders/{id}/preview_crawl: the first rows, what the crawl did, its log. */
export const PreviewResult = Type.Object({
  rows: Type.Array(Type.Record(Type.String(), Type.String())),
  stats: Type.Object({
    items: Type.Number(),
    requests: Type.Number(),
    errors: Type.Number(),
    skippedByRobots: Type.Number(),
    stoppedBy: Type.Optional(Type.String()),
  }),
  log: Type.Array(Type.String()),
});
export type PreviewResult = Static<typeof PreviewResult>;

/** POST /spiders/{id}/extract_fields. */
export const ExtractFieldsOut = Type.Object({
  list_css: Type.String(),
  count: Type.Number(),
  fields: Type.Array(FieldOut),
  page_css: Type.Optional(Type.String()),
});

/** POST /config_spiders/{id}/convert: the spider (as the spiders list shows it) and the files written. */
export const ConvertedSpider = Type.Object(
  { _id: Type.String(), files: Type.Array(Type.String()) },
  { additionalProperties: true },
);

/** A spider as the spiders list shows it (all its fields are passed through). */
export const SpiderOut = Type.Object({ _id: Type.String() }, { additionalProperties: true });
