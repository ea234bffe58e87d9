import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { ResultFormat } from '@crawldeck/shared';
import type { ItemFields, ResultsReader } from './results.reader.ts';

/** Items read from the store per step: one page becomes one chunk of the download. */
const PAGE = 5000;
/** Rows of one xlsx sheet (Excel's limit less the header); more items continue on the next sheet. */
const XLSX_SHEET_ROWS = 1_048_575;
/** Excel keeps at most this many characters in a cell. */
const XLSX_CELL_CHARS = 32_767;

export interface ResultsDownload {
  contentType: string;
  filename: string;
  body: Readable;
}

const NEEDS_QUOTES = /[",\r\n]/;
/** How a cell starts when a spreadsheet would read it as a formula (or a formula in disguise). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Crawled text is written by whoever runs the crawled site: a cell such as `=HYPERLINK(…)` would run as a formula
 * when the export is opened in a spreadsheet. As OWASP advises for CSV injection, such a text cell gets a leading
 * single quote, which spreadsheets show as text; `neutralise` false writes the text as it is.
 */
export const neutralised = (text: string, neutralise: boolean): string =>
  neutralise && FORMULA_START.test(text) ? `'${text}` : text;

/** A field of a CSV record (RFC 4180, as csv-stringify writes it): quoted, its quotes doubled, when it must be. */
const csvField = (text: string) => (NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/**
 * A value as a CSV cell: nothing for null or missing, nested values as JSON, the rest as text. Numbers and booleans
 * are the spider's own values, never formulas; text is neutralised when asked.
 */
function csvCell(v: unknown, neutralise: boolean): string {
  switch (typeof v) {
    case 'string':
      return csvField(neutralised(v, neutralise));
    case 'number':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      return v === null ? '' : csvField(JSON.stringify(v));
    // A JSON document holds none of these but a missing field (undefined): an empty cell.
    case 'undefined':
    case 'bigint':
    case 'function':
    case 'symbol':
      return '';
  }
}

/**
 * One CSV record (RFC 4180, as csv-stringify writes it: a field with a comma, quote or line break is quoted, its
 * quotes doubled). Written here because an export writes millions of them: this is several times faster per
 * record than the library's general-purpose stringifier. Text cells are neutralised when `neutralise` is true.
 */
export function csvRecord(cells: Array<string | number>, neutralise = false): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    line += (i ? ',' : '') + csvField(typeof cell === 'string' ? neutralised(cell, neutralise) : String(cell));
  }
  return line + '\n';
}

/** The CSV records of a block of items, one cell per column, straight into one string (no array per record). */
export function csvRecords(items: ItemFields[], columns: string[], neutralise: boolean): string {
  let out = '';
  for (const item of items) {
    for (let i = 0; i < columns.length; i++) out += (i ? ',' : '') + csvCell(item[columns[i]], neutralise);
    out += '\n';
  }
  return out;
}

/** What a download is asked for besides its format. */
export interface DownloadOptions {
  /** CSV: a UTF-8 byte order mark first, which Excel needs to read Chinese text. */
  bom: boolean;
  /** CSV: text cells that would run as spreadsheet formulas get a leading single quote (header included). */
  neutralise: boolean;
}

/** CSV as before: header from the columns, nested values as JSON, optional UTF-8 byte order mark for Excel. */
async function* csvChunks(reader: ResultsReader, columns: string[], o: DownloadOptions): AsyncGenerator<string> {
  let first = (o.bom ? '\ufeff' : '') + (columns.length ? csvRecord(columns, o.neutralise) : '');
  for await (const page of reader.pages(PAGE)) {
    // No column, no cells: every item is an empty record, as before.
    yield first + (columns.length ? csvRecords(page, columns, o.neutralise) : '\n'.repeat(page.length));
    first = '';
  }
  if (first) yield first;
}

/** JSON as before: the items written again by JSON.stringify, a whole block in one call. */
async function* jsonChunks(reader: ResultsReader, lines: boolean): AsyncGenerator<string> {
  let started = false;
  if (!lines) yield '[';
  for await (const page of reader.pages(PAGE)) {
    if (!page.length) continue;
    if (lines) yield page.map((item) => JSON.stringify(item)).join('\n') + '\n';
    else yield (started ? ',' : '') + JSON.stringify(page).slice(1, -1);
    started = true;
  }
  if (!lines) yield ']';
}

function xlsxCell(v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > XLSX_CELL_CHARS ? text.slice(0, XLSX_CELL_CHARS) : text;
}

/** xlsx through exceljs' streaming writer: each row is committed (written out) at once, so memory stays flat. */
function xlsxStream(reader: ResultsReader, columns: string[]): Readable {
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const write = async () => {
    let sheet: ExcelJS.Worksheet | undefined;
    let sheets = 0;
    let rows = XLSX_SHEET_ROWS;
    for await (const page of reader.pages(PAGE)) {
      for (const item of page) {
        if (rows >= XLSX_SHEET_ROWS) {
          sheet?.commit();
          sheet = workbook.addWorksheet(sheets++ ? `data${sheets}` : 'data');
          sheet.addRow(columns).commit();
          rows = 0;
        }
        sheet!.addRow(columns.map((c) => xlsxCell(item[c]))).commit();
        rows++;
      }
      // Wait for the reader of the download when it is slower than the store.
      if (out.writableNeedDrain) await once(out, 'drain');
    }
    if (!sheet) workbook.addWorksheet('data').addRow(columns).commit();
    else sheet.commit();
    await workbook.commit();
  };
  write().catch((err: unknown) => out.destroy(err as Error));
  return out;
}

/**
 * The name a task's download is saved under: its spider's name and the task id (`quotes-<task id>`), so several
 * downloads do not overwrite each other; `task-<task id>` once the spider is gone. Characters no file system takes
 * become underscores.
 */
export function resultsBasename(spiderName: string | null | undefined, taskId: string): string {
  // eslint-disable-next-line no-control-regex
  const name = (spiderName ?? '').replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, '_').trim();
  return `${name || 'task'}-${taskId}`;
}

/** A task's items as a download in the asked format, read page by page while the client takes them. */
export async function resultsDownload(
  reader: ResultsReader,
  format: ResultFormat,
  options: DownloadOptions,
  basename = 'data',
): Promise<ResultsDownload> {
  const columns = await reader.columns();
  switch (format) {
    case 'csv':
      return {
        contentType: 'text/csv; charset=utf-8',
        filename: `${basename}.csv`,
        body: Readable.from(csvChunks(reader, columns, options)),
      };
    case 'json':
      return {
        contentType: 'application/json; charset=utf-8',
        filename: `${basename}.json`,
        body: Readable.from(jsonChunks(reader, false)),
      };
    case 'jsonl':
      return {
        contentType: 'application/x-ndjson; charset=utf-8',
        filename: `${basename}.jsonl`,
        body: Readable.from(jsonChunks(reader, true)),
      };
    case 'xlsx':
      return {
        contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        filename: `${basename}.xlsx`,
        body: xlsxStream(reader, columns),
      };
    default: {
      const never: never = format;
      throw new Error(`unknown format ${String(never)}`);
    }
  }
}
