/**
 * A small RFC 4180 CSV reader: comma separator, double-quoted fields with "" escapes and embedded newlines,
 * CRLF or LF line ends, optional UTF-8 BOM. Returns rows with their 1-based line number for error messages.
 */
export interface CsvRow {
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

export function parseCsv(text: string): CsvRow[] {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const rows: CsvRow[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let rowLine = 1;
  let i = 0;
  let quoted = false;
  let fieldStarted = false;
  const endRow = () => {
    fields.push(field);
    // Skip blank lines (a single empty field).
    if (!(fields.length === 1 && fields[0] === '' && !fieldStarted)) rows.push({ line: rowLine, fields });
    fields = [];
    field = '';
    fieldStarted = false;
  };
  while (i < s.length) {
    const c = s[i];
    if (quoted) {
      if (c === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        if (i < s.length && s[i] !== ',' && s[i] !== '\n' && s[i] !== '\r')
          throw new CsvError(line, 'unexpected character after a closing quote');
        continue;
      }
      if (c === '\n') line++;
      field += c;
      i++;
      continue;
    }
    if (c === '"') {
      if (field !== '') throw new CsvError(line, 'a quote inside an unquoted field');
      quoted = true;
      fieldStarted = true;
      i++;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      fieldStarted = true;
      i++;
    } else if (c === '\r' || c === '\n') {
      endRow();
      i += c === '\r' && s[i + 1] === '\n' ? 2 : 1;
      line++;
      rowLine = line;
    } else {
      field += c;
      i++;
    }
  }
  if (quoted) throw new CsvError(rowLine, 'unterminated quoted field');
  if (field !== '' || fields.length || fieldStarted) endRow();
  return rows;
}
