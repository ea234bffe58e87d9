import { readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmeSection, tableCells } from '@crawldeck/shared/config-table.ts';
import { loadNodeEnv, nodeVariableTable } from './config.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(path.resolve(here, '../../../README.md'), 'utf8');

/**
 * The configurable spider's own entry point runs as a task process, not in the node service: it reads the items
 * file the node hands every task in that task's environment.
 */
const TASK_PROCESS_ENTRIES = new Set(['config-spider/run.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [p] : [];
  });
}

describe('node configuration', () => {
  it('the README table is the one rendered from the definitions', () => {
    // On a mismatch, paste nodeVariableTable() between the README markers.
    expect(tableCells(readmeSection(readme, 'node-variables') ?? '')).toEqual(tableCells(nodeVariableTable()));
  });

  it('reads the variables with their defaults', () => {
    expect(loadNodeEnv({})).toEqual({ dataDir: path.join(os.homedir(), '.crawldeck', 'node-data'), maxRunners: 8 });
    const env = {
      CRAWLDECK_MASTER_URL: 'http://m:8080',
      CRAWLDECK_NODE_KEY: 'k',
      CRAWLDECK_MAX_RUNNERS: '3',
      CRAWLDECK_PYTHON: '',
    };
    expect(loadNodeEnv(env)).toMatchObject({
      masterUrl: 'http://m:8080',
      nodeKey: 'k',
      maxRunners: 3,
      python: undefined,
    });
    expect(() => loadNodeEnv({ CRAWLDECK_MAX_RUNNERS: '0' })).toThrow(/CRAWLDECK_MAX_RUNNERS/);
  });

  it('keeps its data in an absolute folder, whatever folder it starts in', () => {
    // An installed node's launcher names its own folder: the data stays beside the code.
    expect(loadNodeEnv({ CRAWLDECK_NODE_HOME: '/opt/crawldeck-node' }).dataDir).toBe('/opt/crawldeck-node/data');
    expect(loadNodeEnv({ CRAWLDECK_NODE_HOME: 'crawldeck-node' }).dataDir).toBe(
      path.join(process.cwd(), 'crawldeck-node', 'data'),
    );
    expect(loadNodeEnv({ CRAWLDECK_NODE_DATA_DIR: 'here' }).dataDir).toBe(path.join(process.cwd(), 'here'));
    expect(path.isAbsolute(loadNodeEnv({}).dataDir)).toBe(true);
  });

  it('no other module of the node service reads the environment', () => {
    const readers = sourceFiles(here)
      .map((f) => path.relative(here, f).split(path.sep).join('/'))
      .filter((f) => f !== 'config.ts' && !TASK_PROCESS_ENTRIES.has(f))
      .filter((f) => /process\.env/.test(readFileSync(path.join(here, f), 'utf8')));
    expect(readers).toEqual([]);
  });
});
