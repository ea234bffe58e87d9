import { Type, type Static } from '@sinclair/typebox';
import { Int, MAX_PAGE_NUM, Str } from './bounds.ts';
import { Envelope, EnvelopeList, Nullable, pageFields } from './paging.ts';
import { MAX_PAGE_SIZE } from './constants.ts';

/**
 * Sites and collected URLs: what a request may carry and what the answer holds.
 *
 * Response shapes (the console uses exactly these):
 * - GET /sites → envelope `data: { items: Site[], total_count: number }` (and `total` in the envelope).
 * - GET /sites/get/get_main_category_list, /sites/get/get_category_list → `data: { items: string[] }`.
 * - GET /queryUrl → envelope `data: CollectedUrl[]` plus top-level `totalCount` (and `total`).
 */
export const Site = Type.Object({
  _id: Type.String(),
  domain: Type.String(),
  main_category: Type.String(),
  category: Type.String(),
  rank: Nullable(Type.Number()),
  name: Type.String(),
  description: Type.String(),
  create_ts: Nullable(Type.String({ description: 'ISO 8601 time' })),
  update_ts: Nullable(Type.String({ description: 'ISO 8601 time' })),
});
export type Site = Static<typeof Site>;

export const SiteList = Type.Object({ items: Type.Array(Site), total_count: Type.Number() });
export type SiteList = Static<typeof SiteList>;

export const SiteListQuery = Type.Object({
  ...pageFields(MAX_PAGE_SIZE),
  keyword: Type.Optional(Str(200)),
  /** JSON string `{ "main_category"?: string, "category"?: string }`. */
  filter: Type.Optional(Str(1000)),
});
export type SiteListQuery = Static<typeof SiteListQuery>;

export interface SiteFilter {
  main_category?: string;
  category?: string;
}

export const UpdateSiteBody = Type.Object({ category: Str(200) });
export type UpdateSiteBody = Static<typeof UpdateSiteBody>;

/** Header of the CSV import (any column order; all six columns required). */
export const SITE_CSV_COLUMNS = ['domain', 'main_category', 'category', 'rank', 'name', 'description'] as const;

export const SiteImportResult = Type.Object({
  imported: Type.Number(),
  created: Type.Number(),
  updated: Type.Number(),
});
export type SiteImportResult = Static<typeof SiteImportResult>;

export const CollectedUrl = Type.Object({
  _id: Type.String(),
  url: Type.String(),
  regionCode: Type.String(),
  title: Type.String(),
  create_ts: Nullable(Type.String({ description: 'ISO 8601 time' })),
  update_ts: Nullable(Type.String({ description: 'ISO 8601 time' })),
});
export type CollectedUrl = Static<typeof CollectedUrl>;

export const QueryUrlQuery = Type.Object({
  page: Type.Optional(Int(1, MAX_PAGE_NUM)),
  limited: Type.Optional(Int(1, 1000)),
  regionCode: Type.Optional(Str(20)),
});
export type QueryUrlQuery = Static<typeof QueryUrlQuery>;

export const InsertUrlBody = Type.Object({
  url: Str(4000),
  regionCode: Str(20),
  title: Type.Optional(Str(500)),
});
export type InsertUrlBody = Static<typeof InsertUrlBody>;

export const UpdateUrlBody = Type.Object({
  id: Str(24),
  url: Type.Optional(Str(4000)),
  regionCode: Type.Optional(Str(20)),
  title: Type.Optional(Str(500)),
});
export type UpdateUrlBody = Static<typeof UpdateUrlBody>;

/** Region codes are ISO-3166-style: 2–3 letters or digits ("US", "CN", "419"), or "GLOBAL". */
export function isValidRegionCode(code: string): boolean {
  return /^([A-Za-z]{2,3}|\d{3}|GLOBAL)$/.test(code);
}

export function isValidHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
}

/** A bare host name such as `example.com` or `sub.example.co.uk` (no scheme, path or port). */
export function isValidDomain(domain: string): boolean {
  return (
    domain.length <= 253 && /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/i.test(domain)
  );
}

export const CategoryListQuery = Type.Object({ main_category: Type.Optional(Str(200)) });
export const DeleteUrlQuery = Type.Object({ id: Str(64) });

export const SiteResponse = Envelope(Site);
export const SiteListResponse = Envelope(SiteList);
/** The category lists: `data: {items}`. */
export const CategoryListResponse = Envelope(Type.Object({ items: Type.Array(Type.String()) }));
export const SiteImportResponse = Envelope(SiteImportResult);
export const CollectedUrlResponse = Envelope(CollectedUrl);
/** GET /queryUrl: the page, `total` and the same count as `totalCount` (the name its scripts read). */
export const CollectedUrlListResponse = Type.Composite([
  EnvelopeList(CollectedUrl),
  Type.Object({ totalCount: Type.Number() }),
]);
