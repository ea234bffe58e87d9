import Table from 'cli-table3';

/** How a command prints: a table for a person at a terminal, JSON for scripts (`--json`). */
export interface Output {
  json: boolean;
  /** Whether stderr is a terminal: progress bars and colours only then. */
  tty: boolean;
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Prints rows as a table (columns in the given order) or, with --json, the raw objects. */
export function printRows<T>(out: Output, raw: T[], columns: [header: string, cell: (row: T) => unknown][]): void {
  if (out.json) return printJson(raw);
  if (!raw.length) {
    process.stdout.write('(none)\n');
    return;
  }
  const table = new Table({
    head: columns.map(([h]) => h),
    style: { head: out.tty ? ['cyan'] : [], border: out.tty ? ['grey'] : [] },
  });
  for (const row of raw) table.push(columns.map(([, cell]) => formatCell(cell(row))));
  process.stdout.write(table.toString() + '\n');
}

function formatCell(v: unknown): string {
  if (v === null || v === undefined || v === '') return '-';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

/** ISO time → local "YYYY-MM-DD HH:MM:SS". */
export function when(iso: string | null | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  const s = Math.round(ms / 1000);
  return s < 60
    ? `${s}s`
    : s < 3600
      ? `${Math.floor(s / 60)}m${s % 60}s`
      : `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}
