import { SITE_CSV_COLUMNS, isValidDomain } from '@crawldeck/shared';
import { CsvError, parseCsv } from './csv.ts';

export interface SiteImportRow {
  domain: string;
  main_category: string;
  category: string;
  rank: number | null;
  name: string;
  description: string;
}

export const MAX_IMPORT_ROWS = 200_000;
const MAX_ERRORS_SHOWN = 10;

/**
 * Validates a whole sites CSV (header domain,main_category,category,rank,name,description in any order) and
 * returns its rows, or every problem found (first 10) so nothing is written when any row is wrong.
 */
export function validateSitesCsv(text: string): { rows: SiteImportRow[]; errors: string[] } {
  let parsed;
  try {
    parsed = parseCsv(text);
  } catch (err) {
    return { rows: [], errors: [err instanceof CsvError ? err.message : String(err)] };
  }
  if (!parsed.length) return { rows: [], errors: ['the file is empty'] };
  const header = parsed[0].fields.map((h) => h.trim().toLowerCase());
  const missing = SITE_CSV_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length)
    return {
      rows: [],
      errors: [`line 1: the header lacks column(s) ${missing.join(', ')} (expected ${SITE_CSV_COLUMNS.join(',')})`],
    };
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup) return { rows: [], errors: [`line 1: column ${dup} appears twice`] };
  const col = Object.fromEntries(SITE_CSV_COLUMNS.map((c) => [c, header.indexOf(c)])) as Record<
    (typeof SITE_CSV_COLUMNS)[number],
    number
  >;
  if (parsed.length - 1 > MAX_IMPORT_ROWS) return { rows: [], errors: [`too many rows: at most ${MAX_IMPORT_ROWS}`] };

  const errors: string[] = [];
  const rows: SiteImportRow[] = [];
  const seen = new Map<string, number>();
  for (const { line, fields } of parsed.slice(1)) {
    if (errors.length >= MAX_ERRORS_SHOWN) break;
    if (fields.length !== header.length) {
      errors.push(`line ${line}: ${fields.length} fields, expected ${header.length}`);
      continue;
    }
    const get = (c: keyof typeof col) => fields[col[c]].trim();
    const domain = get('domain').toLowerCase();
    const rankText = get('rank');
    const problems: string[] = [];
    if (!isValidDomain(domain)) problems.push(`domain "${domain}" is not a host name`);
    if (!get('main_category')) problems.push('main_category is required');
    if (get('main_category').length > 200 || get('category').length > 200)
      problems.push('a category is longer than 200 characters');
    if (get('name').length > 500) problems.push('name is longer than 500 characters');
    if (get('description').length > 5000) problems.push('description is longer than 5000 characters');
    if (rankText !== '' && !/^\d{1,9}$/.test(rankText)) problems.push(`rank "${rankText}" is not a whole number`);
    const first = seen.get(domain);
    if (first !== undefined) problems.push(`domain ${domain} already appears on line ${first}`);
    else seen.set(domain, line);
    if (problems.length) {
      errors.push(`line ${line}: ${problems.join('; ')}`);
      continue;
    }
    rows.push({
      domain,
      main_category: get('main_category'),
      category: get('category'),
      rank: rankText === '' ? null : Number(rankText),
      name: get('name'),
      description: get('description'),
    });
  }
  if (!errors.length && !rows.length) errors.push('the file has a header but no rows');
  return { rows: errors.length ? [] : rows, errors };
}
