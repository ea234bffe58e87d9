import type { AnyNode, Element } from 'domhandler';
import type { ExtractFieldsResult, SpiderfileField } from '@crawldeck/shared';
import type { Page } from './engine.ts';

/**
 * Suggests a list selector and fields from a page (POST /spiders/{id}/extract_fields): the parent whose children
 * repeat the same structure (tag + classes) most — weighted by how much text and how many links/images each
 * child has — is the list; the fields are the leaf elements present in most of its children.
 */

const isEl = (n: AnyNode): n is Element => n.type === 'tag';
const classesOf = (el: Element) => (el.attribs.class ?? '').split(/\s+/).filter((c) => /^[A-Za-z_][\w-]*$/.test(c));
const sig = (el: Element) => [el.name, ...classesOf(el).sort()].join('.');
const cssOf = (el: Element) => {
  const cls = classesOf(el);
  return el.name + (cls.length ? '.' + cls.join('.') : '');
};
const SKIP = new Set(['script', 'style', 'noscript', 'head', 'meta', 'link', 'br', 'hr', 'svg', 'path', 'option']);

function selectorFor(el: Element): string {
  const parts: string[] = [];
  let cur: Element | null = el;
  while (cur && isEl(cur) && cur.name !== 'html' && cur.name !== 'body' && parts.length < 4) {
    if (cur.attribs.id && /^[A-Za-z][\w-]*$/.test(cur.attribs.id)) {
      parts.unshift(`#${cur.attribs.id}`);
      return parts.join(' > ');
    }
    parts.unshift(cssOf(cur));
    cur = cur.parent && isEl(cur.parent as AnyNode) ? (cur.parent as Element) : null;
  }
  return parts.join(' > ');
}

function leafPaths(page: Page, item: Element): Map<string, { path: string; attr?: string; kind: string }> {
  const out = new Map<string, { path: string; attr?: string; kind: string }>();
  const walk = (el: Element, rel: string[]) => {
    for (const c of el.children) {
      if (!isEl(c) || SKIP.has(c.name)) continue;
      const p = [...rel, cssOf(c)];
      const key = p.join(' > ');
      const hasElementChildren = c.children.some(
        (x) => isEl(x) && !SKIP.has(x.name) && !['b', 'i', 'em', 'strong', 'span'].includes(x.name),
      );
      if (c.name === 'a' && c.attribs.href) out.set(key + '@href', { path: key, attr: 'href', kind: 'link' });
      if (c.name === 'img' && (c.attribs.src || c.attribs['data-src']))
        out.set(key + '@src', { path: key, attr: c.attribs.src ? 'src' : 'data-src', kind: 'image' });
      const text = page.$(c).text().replace(/\s+/g, ' ').trim();
      if (!hasElementChildren && text) out.set(key, { path: key, kind: c.name === 'a' ? 'title' : 'text' });
      if (hasElementChildren) walk(c, p);
    }
  };
  walk(item, []);
  return out;
}

export function extractFields(page: Page): ExtractFieldsResult | null {
  const $ = page.$;
  let best: { parent: Element; children: Element[]; score: number } | null = null;
  $('body *').each((_, node) => {
    const el = node as Element;
    if (SKIP.has(el.name)) return;
    const groups = new Map<string, Element[]>();
    for (const c of el.children)
      if (isEl(c) && !SKIP.has(c.name)) groups.set(sig(c), [...(groups.get(sig(c)) ?? []), c]);
    for (const children of groups.values()) {
      if (children.length < 3) continue;
      const richness =
        children
          .slice(0, 10)
          .reduce((n, c) => n + Math.min(8, $(c).find('*').length + ($(c).text().trim() ? 1 : 0)), 0) /
        Math.min(children.length, 10);
      if (richness < 1) continue;
      const score = children.length * richness;
      if (!best || score > best.score) best = { parent: el, children, score };
    }
  });
  if (!best) return null;
  const { parent, children } = best as { parent: Element; children: Element[] };
  const listCss = `${selectorFor(parent)} > ${cssOf(children[0])}`;
  const counts = new Map<string, { path: string; attr?: string; kind: string; n: number }>();
  for (const child of children.slice(0, 20)) {
    for (const [k, v] of leafPaths(page, child)) counts.set(k, { ...v, n: (counts.get(k)?.n ?? 0) + 1 });
  }
  const sample = Math.min(children.length, 20);
  const fields: SpiderfileField[] = [];
  const used = new Set<string>();
  const nameFor = (v: { path: string; attr?: string; kind: string }) => {
    const last = v.path.split(' > ').pop()!;
    const cls = last
      .split('.')
      .slice(1)
      .find((c) => !/^(col|row|item|clearfix|d-|mt-|mb-|p-|m-)/.test(c));
    let base =
      v.attr === 'href'
        ? cls
          ? `${cls}_url`
          : 'url'
        : v.attr
          ? cls
            ? `${cls}_${v.attr}`
            : 'image'
          : (cls ?? (v.kind === 'title' ? 'title' : last.split('.')[0]));
    base = base.replace(/[^A-Za-z0-9_]/g, '_');
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
    used.add(name);
    return name;
  };
  for (const v of [...counts.values()].filter((v) => v.n >= Math.max(1, Math.ceil(sample / 2))).slice(0, 12)) {
    fields.push({ name: nameFor(v), css: v.path, ...(v.attr ? { attr: v.attr } : {}) });
  }
  if (!fields.length) fields.push({ name: 'text' });
  const nextLink = $('a')
    .toArray()
    .find(
      (a) =>
        /^(next|next page|下一页|›|»|>)$/i.test($(a).text().trim()) ||
        /\bnext\b/i.test(($(a).attr('class') ?? '') + ' ' + ($(a).attr('rel') ?? '')),
    );
  const result: ExtractFieldsResult = { list_css: listCss, count: $(listCss).length, fields };
  if (nextLink) result.page_css = selectorFor(nextLink as Element);
  return result;
}
