import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * SQL lives only in `*.store.ts` files (and the store module itself: connection, migrations). This test reads
 * every server source file and counts the query-builder calls elsewhere: `selectFrom`, `insertInto`,
 * `updateTable`, `deleteFrom`, `transaction()`, the `sql` template tag and `sql.raw/ref/lit/...`.
 */

const SRC = fileURLToPath(new URL('..', import.meta.url));
const BUILDER_METHODS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'replaceInto',
  'mergeInto',
  'transaction',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const isStoreFile = (rel: string) => rel.endsWith('.store.ts') || rel.startsWith('store/');

/** `line: call` for each query-builder call in one file's source. */
export function queryCalls(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (n: ts.Node, what: string) =>
    found.push(`${file.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${what}`);
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const name = n.expression.name.text;
      if (BUILDER_METHODS.has(name)) at(n, name);
      else if (ts.isIdentifier(n.expression.expression) && n.expression.expression.text === 'sql') at(n, `sql.${name}`);
    }
    if (ts.isTaggedTemplateExpression(n) && ts.isIdentifier(n.tag) && n.tag.text === 'sql') at(n, 'sql``');
    ts.forEachChild(n, visit);
  };
  visit(file);
  return found;
}

function offendersByFile(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const path of sourceFiles(SRC)) {
    const rel = relative(SRC, path).split('\\').join('/');
    if (isStoreFile(rel)) continue;
    const calls = queryCalls(rel, readFileSync(path, 'utf8'));
    if (calls.length) out.set(rel, calls);
  }
  return out;
}

const report = (m: Map<string, string[]>) =>
  [...m].map(([f, calls]) => `${f} (${calls.length}):\n  ${calls.join('\n  ')}`).join('\n');

describe('SQL only in stores', () => {
  const offenders = offendersByFile();

  it('finds the calls it is meant to find', () => {
    const text =
      "db.selectFrom('t'); trx.insertInto('t'); db.updateTable('t'); x.deleteFrom('t'); db.transaction(); sql`1`; sql.raw('1'); // db.selectFrom";
    expect(queryCalls('x.ts', text)).toHaveLength(7);
  });

  it('no query-builder call outside *.store.ts', () => {
    expect(offenders.size, `query-builder calls outside stores:\n${report(offenders)}`).toBe(0);
  });
});
