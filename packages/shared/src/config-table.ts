/** One environment variable as the README documents it. */
export interface VariableDefinition {
  /** The default as the README shows it (markdown). */
  default: string;
  /** What it does, one line of markdown. */
  description: string;
}

/** The markdown table of a set of variables, in the order they are defined. */
export function renderVariableTable(variables: Record<string, VariableDefinition>): string {
  const rows = Object.entries(variables).map(([name, v]) => `| \`${name}\` | ${v.default} | ${v.description} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The lines of `readme` between the marker comments `<!-- name:start -->` and `<!-- name:end -->`. */
export function readmeSection(readme: string, name: string): string | undefined {
  const m = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(readme);
  return m?.[1];
}

/**
 * The cells of a markdown table, row by row, trimmed, without the separator row: two tables with the same content
 * compare equal however a formatter padded their columns.
 */
export function tableCells(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.trim().startsWith('|'))
    .map((line) =>
      line
        .trim()
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((cell) => cell.trim()),
    )
    .filter((cells) => !cells.every((c) => /^:?-+:?$/.test(c)));
}
