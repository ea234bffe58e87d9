/**
 * Related Documentation tree. Pure: no React, no network.
 *
 * GET /docs answers `data.string`, a JSON map of paths → {title, url}. Paths ending in '/' are sections (level 1
 * groups); '.html' paths are children (level 2) of the section named by their first path segment. The section(s)
 * matching the first segment of the current route (ROUTE_TOPICS) are marked active and expanded.
 */
export interface DocEntry {
  title: string;
  url: string;
}

export interface DocNode {
  label: string;
  /** The docs map key, e.g. '/spider/' or '/spider/index.html'. */
  url: string;
  /** The absolute (or site-relative) link the server gave, opened in a new window. */
  fullUrl: string;
  /** 1 for a group (section), 2 for a page. */
  level: 1 | 2;
  children: DocNode[];
  active: boolean;
}

/**
 * Route first segment → help topics, spelled as the section titles of the server's docs index
 * (packages/server/src/features/system/docs-index.ts).
 */
export const ROUTE_TOPICS: Record<string, string[]> = {
  projects: ['Project'],
  spiders: ['Spider', 'SDK', 'Integration', 'CI-Git'],
  tasks: ['Task'],
  schedules: ['Schedule'],
  nodes: ['Node'],
  setting: ['Notification'],
};

/** '/spiders/abc?x' → 'spiders'; '/' → ''. */
export function firstSegment(pathname: string): string {
  return (
    pathname
      .replace(/[?#].*$/, '')
      .split('/')
      .filter(Boolean)[0] ?? ''
  );
}

/** The section segment of a docs path: '/spider/upload.html' → 'spider'. */
function sectionOf(path: string): string {
  return path.split('/').filter(Boolean)[0] ?? '';
}

/** Parses data.string; anything that is not an object of {title, url} entries yields an empty map. */
export function parseDocsString(raw: unknown): Record<string, DocEntry> {
  if (typeof raw !== 'string' || !raw) return {};
  try {
    const v = JSON.parse(raw) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    const out: Record<string, DocEntry> = {};
    for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
      if (e && typeof e === 'object' && typeof (e as DocEntry).title === 'string') {
        out[k] = {
          title: (e as DocEntry).title,
          url: typeof (e as DocEntry).url === 'string' ? (e as DocEntry).url : '',
        };
      }
    }
    return out;
  } catch {
    return {};
  }
}

/**
 * Builds the tree in the map's order. Pages whose section is not in the map, and paths that are neither
 * sections nor .html pages, are left out. `pathname` is the current route path.
 */
export function buildDocsTree(docs: Record<string, DocEntry>, pathname: string): DocNode[] {
  const topics = ROUTE_TOPICS[firstSegment(pathname)] ?? [];
  const groups = new Map<string, DocNode>();
  for (const [path, entry] of Object.entries(docs)) {
    if (!path.endsWith('/')) continue;
    const seg = sectionOf(path);
    if (!seg || groups.has(seg)) continue;
    groups.set(seg, {
      label: entry.title,
      url: path,
      fullUrl: entry.url,
      level: 1,
      children: [],
      active: topics.includes(entry.title),
    });
  }
  for (const [path, entry] of Object.entries(docs)) {
    if (!path.endsWith('.html')) continue;
    const group = groups.get(sectionOf(path));
    if (!group) continue;
    group.children.push({ label: entry.title, url: path, fullUrl: entry.url, level: 2, children: [], active: false });
  }
  return Array.from(groups.values());
}

/** Keys (docs paths) of the groups to expand: the active ones. */
export function activeKeys(tree: DocNode[]): string[] {
  return tree.filter((n) => n.active).map((n) => n.url);
}

/**
 * A documentation link in the console's language: the master's guide serves English or Chinese by `?lang=`
 * (another docs site given by the server ignores the parameter).
 */
export function docsHref(url: string, lang: string): string {
  if (!url) return url;
  const [base, hash = ''] = url.split('#');
  const sep = base.includes('?') ? '&' : '?';
  return `${base}${sep}lang=${lang === 'zh' ? 'zh' : 'en'}${hash ? `#${hash}` : ''}`;
}
