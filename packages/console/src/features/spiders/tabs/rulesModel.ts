/** Rules form ⇄ Spiderfile (packages/shared/src/config-spider.ts) for the Rules tab. */
import type { Spiderfile, SpiderfileField, SpiderfileStage } from '@crawldeck/shared';

export type SelectorKind = 'css' | 'xpath';

export interface RulesField {
  name: string;
  sel: SelectorKind;
  selector?: string;
  attr?: string;
  next_stage?: string;
  remark?: string;
}

export interface RulesStage {
  name: string;
  is_list: boolean;
  list_sel: SelectorKind;
  list_selector?: string;
  page_sel: SelectorKind;
  page_selector?: string;
  page_attr?: string;
  fields: RulesField[];
}

export interface RulesValues {
  start_url: string;
  start_stage?: string;
  engine: string;
  robots: boolean;
  delay: number | null;
  max_pages: number | null;
  user_agent?: string;
  stages: RulesStage[];
}

export const DEFAULT_MAX_PAGES = 10;

export function toRulesValues(sf: Spiderfile): RulesValues {
  const s = sf.settings ?? {};
  return {
    start_url: sf.start_url ?? '',
    start_stage: sf.start_stage || sf.stages[0]?.name,
    engine: sf.engine || 'cheerio',
    robots: s.ROBOTSTXT_OBEY === undefined ? true : s.ROBOTSTXT_OBEY === true || s.ROBOTSTXT_OBEY === 'true',
    delay: s.DOWNLOAD_DELAY === undefined ? 0 : Number(s.DOWNLOAD_DELAY),
    max_pages: s.MAX_PAGES === undefined ? DEFAULT_MAX_PAGES : Number(s.MAX_PAGES),
    user_agent: typeof s.USER_AGENT === 'string' ? s.USER_AGENT : undefined,
    stages: sf.stages.map((st): RulesStage => ({
      name: st.name,
      is_list: !!st.is_list,
      list_sel: st.list_xpath ? 'xpath' : 'css',
      list_selector: st.list_xpath || st.list_css || undefined,
      page_sel: st.page_xpath ? 'xpath' : 'css',
      page_selector: st.page_xpath || st.page_css || undefined,
      page_attr: st.page_attr || undefined,
      fields: st.fields.map((f): RulesField => ({
        name: f.name,
        sel: f.xpath ? 'xpath' : 'css',
        selector: f.xpath || f.css || undefined,
        attr: f.attr || undefined,
        next_stage: f.next_stage || undefined,
        remark: f.remark || undefined,
      })),
    })),
  };
}

const opt = (v: string | undefined | null) => {
  const x = (v ?? '').trim();
  return x ? x : undefined;
};

/** Form values → Spiderfile; name, col, display_name, version and settings the form does not show come from `base`. */
export function toSpiderfile(v: RulesValues, base: Spiderfile): Spiderfile {
  const settings: Record<string, string | number | boolean> = { ...(base.settings ?? {}) };
  settings.ROBOTSTXT_OBEY = !!v.robots;
  if (v.delay === null || v.delay === undefined) delete settings.DOWNLOAD_DELAY;
  else settings.DOWNLOAD_DELAY = Number(v.delay);
  if (v.max_pages === null || v.max_pages === undefined) delete settings.MAX_PAGES;
  else settings.MAX_PAGES = Number(v.max_pages);
  if (opt(v.user_agent)) settings.USER_AGENT = opt(v.user_agent)!;
  else delete settings.USER_AGENT;
  const stages: SpiderfileStage[] = (v.stages ?? []).map((st) => {
    const out: SpiderfileStage = { name: (st.name ?? '').trim(), fields: [] };
    if (st.is_list) {
      out.is_list = true;
      if (opt(st.list_selector)) out[st.list_sel === 'xpath' ? 'list_xpath' : 'list_css'] = opt(st.list_selector);
    }
    if (opt(st.page_selector)) {
      out[st.page_sel === 'xpath' ? 'page_xpath' : 'page_css'] = opt(st.page_selector);
      if (opt(st.page_attr)) out.page_attr = opt(st.page_attr);
    }
    out.fields = (st.fields ?? []).map((f) => {
      const field: SpiderfileField = { name: (f.name ?? '').trim() };
      if (opt(f.selector)) field[f.sel === 'xpath' ? 'xpath' : 'css'] = opt(f.selector);
      if (opt(f.attr)) field.attr = opt(f.attr);
      if (opt(f.next_stage)) field.next_stage = opt(f.next_stage);
      if (opt(f.remark)) field.remark = opt(f.remark);
      return field;
    });
    return out;
  });
  const sf: Spiderfile = {
    ...(base.version ? { version: base.version } : {}),
    name: base.name,
    ...(base.display_name ? { display_name: base.display_name } : {}),
    ...(base.col ? { col: base.col } : {}),
    start_url: (v.start_url ?? '').trim(),
    start_stage: opt(v.start_stage) ?? stages[0]?.name ?? '',
    engine: v.engine || 'cheerio',
    settings,
    stages,
  };
  return sf;
}

export const emptyStage = (name: string, isList = false): RulesStage => ({
  name,
  is_list: isList,
  list_sel: 'css',
  page_sel: 'css',
  fields: [{ name: 'title', sel: 'css' }],
});
