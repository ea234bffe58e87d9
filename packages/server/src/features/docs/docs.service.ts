import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import MarkdownIt from 'markdown-it';
import { docsIndex } from '../system/docs-index.ts';

/**
 * The user guide the master serves at /docs/…: markdown pages under docs/guide/<lang>/ in the repository, one file
 * per page of the docs map (`/node/multi-node.html` ← `node/multi-node.md`), rendered once per language and
 * kept in memory. Raw HTML in the markdown is not rendered (markdown-it `html: false`), and the page loads only
 * its own stylesheet: it lives under the same strict content security policy as the console.
 */

export type DocsLang = 'en' | 'zh';
export const DOCS_LANGS: readonly DocsLang[] = ['en', 'zh'];

export const GUIDE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../docs/guide');

const TEXT: Record<DocsLang, { guide: string; other: string; otherLang: DocsLang; missing: string; sections: string }> =
  {
    en: {
      guide: 'Crawldeck documentation',
      other: '中文',
      otherLang: 'zh',
      missing: 'This page has not been written yet.',
      sections: 'Pages in this section',
    },
    zh: {
      guide: 'Crawldeck 文档',
      other: 'English',
      otherLang: 'en',
      missing: '此页面尚未编写。',
      sections: '本节页面',
    },
  };

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
// Links between guide pages keep the reader's language: a relative link gets ?lang= of the page it is on.
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const lang = (env as { lang?: DocsLang } | undefined)?.lang;
  const href = String(tokens[idx].attrGet('href') ?? '');
  if (lang && href && !/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(href) && !href.includes('?'))
    tokens[idx].attrSet('href', `${href}?lang=${lang}`);
  return defaultLinkOpen(tokens, idx, options, env, self);
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Picks the language: an explicit ?lang=, else the browser's Accept-Language (zh → Chinese), else English. */
export function chooseLang(query: string | undefined, acceptLanguage: string | undefined): DocsLang {
  if (query === 'zh' || query === 'en') return query;
  const first = (acceptLanguage ?? '').split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('zh') ? 'zh' : 'en';
}

interface PageSource {
  /** Path in the docs map, e.g. '/node/multi-node.html' or '/node/' for a section. */
  key: string;
  title: string;
}

/** The map's pages and sections (its keys), in map order. */
function mapEntries(): PageSource[] {
  return Object.entries(docsIndex('')).map(([key, e]) => ({ key, title: e.title }));
}

function markdownFile(lang: DocsLang, key: string): string {
  return path.join(GUIDE_DIR, lang, key.replace(/^\//, '').replace(/\.html$/, '.md'));
}

function firstHeading(source: string): string | undefined {
  return /^#\s+(.+)$/m.exec(source)?.[1]?.trim();
}

export class DocsSite {
  private cache = new Map<string, string>();

  constructor(private base: string) {}

  /** Every URL the docs map names; the routes answer 200 for exactly these (and the top page). */
  keys(): string[] {
    return mapEntries().map((e) => e.key);
  }

  /** The rendered page, or undefined when the map does not name it. */
  page(key: string, lang: DocsLang): string | undefined {
    const normal = key === '' || key === '/' ? '/' : key;
    if (normal !== '/' && !this.keys().includes(normal)) return undefined;
    const cacheKey = `${lang}:${normal}`;
    let html = this.cache.get(cacheKey);
    if (!html) {
      html = this.render(normal, lang);
      this.cache.set(cacheKey, html);
    }
    return html;
  }

  private render(key: string, lang: DocsLang): string {
    const entries = mapEntries();
    if (key === '/')
      return this.layout(
        lang,
        key,
        TEXT[lang].guide,
        this.sectionList(
          entries.filter((e) => e.key.endsWith('/')),
          lang,
          true,
        ),
      );
    if (key.endsWith('/')) {
      const pages = entries.filter((e) => !e.key.endsWith('/') && e.key.startsWith(key));
      const section = entries.find((e) => e.key === key)!;
      return this.layout(
        lang,
        key,
        section.title,
        `<h1>${escapeHtml(section.title)}</h1><h2>${TEXT[lang].sections}</h2>${this.sectionList(pages, lang, false)}`,
      );
    }
    const file = markdownFile(lang, key);
    const fallback = entries.find((e) => e.key === key)!.title;
    if (!existsSync(file))
      return this.layout(lang, key, fallback, `<h1>${escapeHtml(fallback)}</h1><p>${TEXT[lang].missing}</p>`);
    const source = readFileSync(file, 'utf8');
    return this.layout(lang, key, firstHeading(source) ?? fallback, md.render(source, { lang }));
  }

  private href(key: string, lang: DocsLang): string {
    return `${this.base}${key}?lang=${lang}`;
  }

  private sectionList(entries: PageSource[], lang: DocsLang, withPages: boolean): string {
    const all = mapEntries();
    const items = entries.map((e) => {
      const children = withPages ? all.filter((p) => !p.key.endsWith('/') && p.key.startsWith(e.key)) : [];
      const sub = children.length
        ? `<ul>${children.map((p) => `<li><a href="${this.href(p.key, lang)}">${escapeHtml(this.pageTitle(p, lang))}</a></li>`).join('')}</ul>`
        : '';
      return `<li><a href="${this.href(e.key, lang)}">${escapeHtml(this.pageTitle(e, lang))}</a>${sub}</li>`;
    });
    return `<ul class="docs-list">${items.join('')}</ul>`;
  }

  /** A page's title in the language (its markdown heading), the map's title for sections. */
  private pageTitle(e: PageSource, lang: DocsLang): string {
    if (e.key.endsWith('/')) return e.title;
    const file = markdownFile(lang, e.key);
    return (existsSync(file) && firstHeading(readFileSync(file, 'utf8'))) || e.title;
  }

  private layout(lang: DocsLang, key: string, title: string, body: string): string {
    const t = TEXT[lang];
    return `<!doctype html>
<html lang="${lang === 'zh' ? 'zh-CN' : 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${t.guide}</title>
<link rel="stylesheet" href="${this.base}/docs.css">
</head>
<body>
<header class="docs-header"><a class="docs-home" href="${this.href('/', lang)}">${t.guide}</a><a class="docs-lang" hreflang="${t.otherLang}" href="${this.href(key, t.otherLang)}">${t.other}</a></header>
<main class="docs-main">
${body}
</main>
</body>
</html>
`;
  }
}
