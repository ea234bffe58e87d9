import * as cheerio from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { fetch } from 'undici';
import { DOMImplementation } from '@xmldom/xmldom';
import xpath from 'xpath';
import type { Spiderfile, SpiderfileField, SpiderfileStage } from '@crawldeck/shared';
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, type RobotsRules } from './robots.ts';

/**
 * The configurable-spider engine: runs a validated Spiderfile with undici (HTTP) and cheerio (HTML, CSS
 * selectors); XPath 1.0 through the `xpath` library on an xmldom mirror of the same parsed tree, so CSS and
 * XPath can be mixed (a list found by XPath, fields by CSS, and the other way round).
 *
 * Order is deterministic (depth first: a list row's detail page is fetched before the next row), one request at
 * a time with DOWNLOAD_DELAY between requests (or robots.txt's Crawl-delay when larger), so a preview's rows are
 * exactly the first rows of a run.
 */

export interface CrawlOptions {
  onItem(row: Record<string, string>): void | Promise<void>;
  log?(line: string): void;
  /** Stop after this many items (preview). */
  maxItems?: number;
  /** Overrides settings.MAX_PAGES: pages followed per paginated list (the first page counts). */
  maxPages?: number;
  /** Stop fetching when this many requests were made in total (preview budget). */
  maxRequests?: number;
  /** Epoch ms after which no request is started. */
  deadline?: number;
  signal?: AbortSignal;
}

export interface CrawlStats {
  items: number;
  requests: number;
  errors: number;
  skippedByRobots: number;
  stoppedBy?: 'maxItems' | 'maxRequests' | 'deadline' | 'aborted';
}

export const DEFAULT_USER_AGENT = 'Crawldeck-ConfigSpider/4.0 (+https://crawldeck.invalid)';

class Stop extends Error {
  constructor(public why: NonNullable<CrawlStats['stoppedBy']>) {
    super(why);
  }
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
const URL_ATTRS = new Set(['href', 'src', 'action', 'data-src', 'data-href']);

/** A parsed page: cheerio root plus a lazily built xmldom mirror for XPath. */
export class Page {
  readonly $: cheerio.CheerioAPI;
  private mirror?: { doc: Document; toDom: Map<unknown, AnyNode>; toXml: Map<AnyNode, Node> };
  constructor(
    readonly url: string,
    html: string,
  ) {
    this.$ = cheerio.load(html);
  }

  private buildMirror() {
    if (this.mirror) return this.mirror;
    const doc = new DOMImplementation().createDocument(null, '', null) as unknown as Document;
    const toDom = new Map<unknown, AnyNode>();
    const toXml = new Map<AnyNode, Node>();
    const root = this.$.root()[0] as unknown as AnyNode;
    toXml.set(root, doc);
    toDom.set(doc, root);
    const visit = (node: AnyNode, parent: Node) => {
      for (const child of (node as Element).children ?? []) {
        let x: Node | null = null;
        if (child.type === 'tag' || child.type === 'script' || child.type === 'style') {
          const el = child as Element;
          let xe: globalThis.Element;
          try {
            xe = doc.createElement(el.name);
          } catch {
            xe = doc.createElement('invalid');
          }
          for (const [k, v] of Object.entries(el.attribs ?? {})) {
            try {
              xe.setAttribute(k, v);
            } catch {
              /* attribute names XML refuses are skipped */
            }
          }
          x = xe;
          parent.appendChild(x);
          visit(el, x);
        } else if (child.type === 'text') {
          x = doc.createTextNode((child as unknown as { data: string }).data);
          parent.appendChild(x);
        }
        if (x) {
          toDom.set(x, child);
          toXml.set(child, x);
        }
      }
    };
    visit(root, doc);
    this.mirror = { doc, toDom, toXml };
    return this.mirror;
  }

  /** Evaluates XPath relative to `context` (default: the document): nodes map back to cheerio nodes, other results are strings. */
  xpath(expr: string, context?: AnyNode): (AnyNode | string)[] {
    const m = this.buildMirror();
    const ctx = context ? m.toXml.get(context) : m.doc;
    if (!ctx) return [];
    let result: unknown;
    try {
      result = xpath.select(expr, ctx);
    } catch (err) {
      throw new Error(`invalid XPath "${expr}": ${(err as Error).message}`);
    }
    const list = Array.isArray(result) ? result : [result];
    return list.map((n) => {
      if (n && typeof n === 'object' && 'nodeType' in (n as object)) {
        const node = n as Node;
        if (node.nodeType === 2) return (node as Attr).value;
        const back = m.toDom.get(node);
        return back ?? node.textContent ?? '';
      }
      return String(n);
    });
  }

  /** Elements matching a CSS selector or XPath within `context`. */
  select(sel: { css?: string; xpath?: string }, context?: AnyNode): AnyNode[] {
    if (sel.xpath) return this.xpath(sel.xpath, context).filter((n): n is AnyNode => typeof n !== 'string');
    if (sel.css) {
      try {
        return (context ? this.$(context).find(sel.css) : this.$(sel.css)).toArray() as AnyNode[];
      } catch (err) {
        throw new Error(`invalid CSS selector "${sel.css}": ${(err as Error).message}`);
      }
    }
    return context ? [context] : (this.$.root().toArray() as AnyNode[]);
  }

  absolute(href: string): string {
    try {
      return new URL(href, this.url).toString();
    } catch {
      return href;
    }
  }

  /** A field's value within `context`: attribute or collapsed text of the first match ('' when nothing). */
  field(f: SpiderfileField, context?: AnyNode): string {
    if (f.xpath) {
      const first = this.xpath(f.xpath, context)[0];
      if (first === undefined) return '';
      if (typeof first === 'string')
        return f.attr && URL_ATTRS.has(f.attr) ? this.absolute(collapse(first)) : collapse(first);
      return this.valueOf(first, f.attr);
    }
    const node = f.css
      ? this.select({ css: f.css }, context)[0]
      : (context ?? (this.$('body')[0] as AnyNode | undefined) ?? (this.$.root()[0] as AnyNode));
    return node ? this.valueOf(node, f.attr) : '';
  }

  private valueOf(node: AnyNode, attr?: string): string {
    const $n = this.$(node);
    if (attr) {
      const v = $n.attr(attr);
      if (v === undefined) return '';
      return URL_ATTRS.has(attr) ? this.absolute(v.trim()) : v.trim();
    }
    return collapse($n.text());
  }
}

export interface Fetcher {
  (
    url: string,
    opts: { userAgent: string; timeoutMs: number; signal?: AbortSignal },
  ): Promise<{ status: number; url: string; body: string; contentType: string }>;
}

export const httpFetcher: Fetcher = async (url, { userAgent, timeoutMs, signal }) => {
  const ac = AbortSignal.timeout(timeoutMs);
  const res = await fetch(url, {
    headers: { 'user-agent': userAgent, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    redirect: 'follow',
    signal: signal ? AbortSignal.any([ac, signal]) : ac,
  });
  const body = await res.text();
  return { status: res.status, url: res.url || url, body, contentType: res.headers.get('content-type') ?? '' };
};

function num(v: unknown, fallback: number): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}
function bool(v: unknown, fallback: boolean): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return !['false', '0', 'no', 'off', ''].includes(v.toLowerCase());
  if (typeof v === 'number') return v !== 0;
  return fallback;
}

/** Resolved crawl settings of a Spiderfile (documented in docs/spiders.md). */
export function crawlSettings(sf: Spiderfile) {
  const s = sf.settings ?? {};
  return {
    obeyRobots: bool(s.ROBOTSTXT_OBEY, true),
    delayMs: num(s.DOWNLOAD_DELAY, 0) * 1000,
    maxPages: Math.max(1, Math.floor(num(s.MAX_PAGES, 10))),
    userAgent: typeof s.USER_AGENT === 'string' && s.USER_AGENT ? s.USER_AGENT : DEFAULT_USER_AGENT,
    timeoutMs: num(s.TIMEOUT, 30) * 1000,
  };
}

export class ConfigCrawler {
  readonly stats: CrawlStats = { items: 0, requests: 0, errors: 0, skippedByRobots: 0 };
  private settings: ReturnType<typeof crawlSettings>;
  private robots = new Map<string, RobotsRules>();
  private lastRequest = 0;
  private stages: Map<string, SpiderfileStage>;
  private seenPages = new Set<string>();

  constructor(
    private sf: Spiderfile,
    private opts: CrawlOptions,
    private fetcher: Fetcher = httpFetcher,
  ) {
    this.settings = crawlSettings(sf);
    if (opts.maxPages) this.settings.maxPages = opts.maxPages;
    this.stages = new Map(sf.stages.map((s) => [s.name, s]));
  }

  private log(line: string) {
    this.opts.log?.(line);
  }

  private async robotsFor(u: URL): Promise<RobotsRules> {
    const origin = u.origin;
    const cached = this.robots.get(origin);
    if (cached) return cached;
    let rules: RobotsRules = ALLOW_ALL;
    try {
      await this.politeWait();
      this.stats.requests++;
      const res = await this.fetcher(`${origin}/robots.txt`, {
        userAgent: this.settings.userAgent,
        timeoutMs: this.settings.timeoutMs,
        signal: this.opts.signal,
      });
      if (res.status >= 500) rules = DISALLOW_ALL;
      else if (res.status < 400) rules = parseRobots(res.body, this.settings.userAgent);
    } catch {
      rules = ALLOW_ALL; // unreachable robots.txt: allowed (RFC 9309 §2.3.1.3)
    }
    this.robots.set(origin, rules);
    return rules;
  }

  private async politeWait() {
    let wait = this.lastRequest + this.settings.delayMs - Date.now();
    // a delay never outlasts the deadline (the budget check after it stops the crawl)
    if (this.opts.deadline) wait = Math.min(wait, this.opts.deadline - Date.now());
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    this.lastRequest = Date.now();
  }

  private checkBudget() {
    if (this.opts.signal?.aborted) throw new Stop('aborted');
    if (this.opts.deadline && Date.now() >= this.opts.deadline) throw new Stop('deadline');
    if (this.opts.maxRequests !== undefined && this.stats.requests >= this.opts.maxRequests)
      throw new Stop('maxRequests');
  }

  /** Fetches and parses a page; null when robots.txt forbids it or the fetch failed (logged, counted). */
  async page(url: string): Promise<Page | null> {
    this.checkBudget();
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      this.stats.errors++;
      this.log(`skipped invalid URL ${url}`);
      return null;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      this.log(`skipped ${url}: only http and https are fetched`);
      return null;
    }
    if (this.settings.obeyRobots) {
      const rules = await this.robotsFor(u);
      if (rules.crawlDelay && rules.crawlDelay * 1000 > this.settings.delayMs)
        this.settings.delayMs = rules.crawlDelay * 1000;
      if (!rules.allows(u.pathname + u.search)) {
        this.stats.skippedByRobots++;
        this.log(`skipped ${url}: disallowed by robots.txt (set settings.ROBOTSTXT_OBEY: false to ignore it)`);
        return null;
      }
      this.checkBudget();
    }
    await this.politeWait();
    this.stats.requests++;
    try {
      const res = await this.fetcher(url, {
        userAgent: this.settings.userAgent,
        timeoutMs: this.settings.timeoutMs,
        signal: this.opts.signal,
      });
      this.log(`GET ${url} → ${res.status}`);
      if (res.status >= 400) {
        this.stats.errors++;
        return null;
      }
      return new Page(res.url, res.body);
    } catch (err) {
      if (this.opts.signal?.aborted) throw new Stop('aborted');
      this.stats.errors++;
      this.log(`error fetching ${url}: ${(err as Error).message}`);
      return null;
    }
  }

  private async emit(row: Record<string, string>) {
    if (this.opts.maxItems !== undefined && this.stats.items >= this.opts.maxItems) throw new Stop('maxItems');
    this.stats.items++;
    await this.opts.onItem(row);
    if (this.opts.maxItems !== undefined && this.stats.items >= this.opts.maxItems) throw new Stop('maxItems');
  }

  /** Extracts a stage's fields from `context` and follows a next_stage link (or emits the row). */
  private async row(stage: SpiderfileStage, page: Page, context: AnyNode | undefined, base: Record<string, string>) {
    const row: Record<string, string> = { ...base };
    let next: { stage: SpiderfileStage; url: string } | undefined;
    for (const f of stage.fields) {
      const value = page.field(f, context);
      row[f.name] = value;
      if (f.next_stage && value && !next) {
        const target = this.stages.get(f.next_stage);
        if (target) next = { stage: target, url: page.absolute(value) };
      }
    }
    if (next) {
      const detail = await this.page(next.url);
      if (detail) {
        await this.runStage(next.stage, detail, row);
        return;
      }
    }
    await this.emit(row);
  }

  private async runStage(stage: SpiderfileStage, first: Page, base: Record<string, string>) {
    let page: Page | null = first;
    let pages = 0;
    while (page) {
      pages++;
      this.seenPages.add(page.url);
      if (stage.is_list) {
        const els = page.select({ css: stage.list_css, xpath: stage.list_xpath });
        for (const el of els) await this.row(stage, page, el, base);
      } else {
        await this.row(stage, page, undefined, base);
      }
      if (!(stage.page_css || stage.page_xpath) || pages >= this.settings.maxPages) break;
      const nextUrl = page.field({
        name: '_page',
        css: stage.page_css,
        xpath: stage.page_xpath,
        attr: stage.page_attr || 'href',
      });
      if (!nextUrl) break;
      const abs = page.absolute(nextUrl);
      if (this.seenPages.has(abs)) break;
      page = await this.page(abs);
    }
  }

  async run(): Promise<CrawlStats> {
    const start = this.stages.get(this.sf.start_stage) ?? this.sf.stages[0];
    try {
      const first = await this.page(this.sf.start_url);
      if (first) await this.runStage(start, first, {});
    } catch (err) {
      if (err instanceof Stop) this.stats.stoppedBy = err.why;
      else throw err;
    }
    return this.stats;
  }
}

export function crawl(sf: Spiderfile, opts: CrawlOptions, fetcher?: Fetcher): Promise<CrawlStats> {
  return new ConfigCrawler(sf, opts, fetcher).run();
}
