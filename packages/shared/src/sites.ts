import { Type, type Static } from '@sinclair/typebox';
import { Int, MAX_PAGE_NUM, Str } from './bounds.ts';
import { pageFields } from './paging.ts';
import { MAX_PAGE_SIZE } from './constants.ts';

/**
 * Sites and collected URLs (spec §3 "Site", §7 "Sites", "Collected URLs").
 *
 * Response shapes (the console uses exactly these):
 * - GET /sites → envelope `data: { items: Site[], total_count: number }` (and `total` in the envelope).
 * - GET /sites/get/get_main_category_list, /sites/get/get_category_list → `data: { items: string[] }`.
 * - GET /queryUrl → envelope `data: CollectedUrl[]` plus top-level `totalCount` (and `total`).
 */
export interface Site {
  _id: string;
  domain: string;
  main_category: string;
  category: string;
  rank: number | null;
  name: string;
  description: string;
  create_ts: string | null;
  update_ts: string | null;
}

export interface SiteList {
  items: Site[];
  total_count: number;
}

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

export interface SiteImportResult {
  imported: number;
  created: number;
  updated: number;
}

export interface CollectedUrl {
  _id: string;
  url: string;
  regionCode: string;
  title: string;
  create_ts: string | null;
  update_ts: string | null;
}

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
  return domain.length <= 253 && /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/i.test(domain);
}

export const CategoryListQuery = Type.Object({ main_category: Type.Optional(Str(200)) });
export const DeleteUrlQuery = Type.Object({ id: Str(64) });
