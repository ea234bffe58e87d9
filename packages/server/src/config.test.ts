import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmeSection, tableCells } from '@crawldeck/shared/config-table.ts';
import { MASTER_VARIABLES, loadConfig, masterVariableTable } from './config.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(path.resolve(here, '../../../README.md'), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

describe('master configuration', () => {
  it('the README table is the one rendered from the definitions', () => {
    // On a mismatch, paste masterVariableTable() between the README markers.
    expect(tableCells(readmeSection(readme, 'master-variables') ?? '')).toEqual(tableCells(masterVariableTable()));
  });

  it('no other server module reads the environment', () => {
    const readers = sourceFiles(here)
      .map((f) => path.relative(here, f))
      .filter(
        (f) => f !== 'config.ts' && /process\.env|env\.CRAWLDECK_/.test(readFileSync(path.join(here, f), 'utf8')),
      );
    expect(readers).toEqual([]);
  });

  it('uses the documented defaults when nothing is set', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-config-'));
    const c = loadConfig({ dataDir }, {});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      embeddedNode: true,
      sessionTtlMs: 168 * 3600_000,
      releasesUrl: '',
    });
    expect(c).toMatchObject({
      gitTimeoutMs: 120_000,
      gitAutoSyncMs: 300_000,
      previewTimeoutMs: 20_000,
      previewMaxRequests: 40,
    });
    expect(c).toMatchObject({
      python: '/usr/bin/python3',
      scrapyTimeoutMs: 60_000,
      nodeHeartbeatMs: 2000,
      nodeOfflineMs: 10_000,
    });
    expect(c).toMatchObject({
      webhookTimeoutMs: 5000,
      webhookBackoffMs: 1000,
      scheduleGraceMs: 60_000,
      schedulerEnabled: true,
    });
    expect(c.sqliteCache).toEqual({ cacheMb: 128, mmapMb: 0 });
    expect(c.nodeKey).toMatch(/^\S{20,}$/);
  });

  it('reads each variable, flags bad numbers by name and lets overrides win', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-config-'));
    const env = {
      CRAWLDECK_GIT_AUTO_SYNC_S: '0',
      CRAWLDECK_SCHEDULER: 'off',
      CRAWLDECK_PREVIEW_TIMEOUT_MS: '1500',
      CRAWLDECK_NODE_KEY: 'k',
    };
    expect(loadConfig({ dataDir }, env)).toMatchObject({
      gitAutoSyncMs: 0,
      schedulerEnabled: false,
      previewTimeoutMs: 1500,
      nodeKey: 'k',
    });
    expect(loadConfig({ dataDir, nodeKey: 'flag' }, env).nodeKey).toBe('flag');
    expect(() => loadConfig({ dataDir }, { CRAWLDECK_SIGNUPS_PER_HOUR: 'many' })).toThrow(/CRAWLDECK_SIGNUPS_PER_HOUR/);
    const sqlite = { CRAWLDECK_SQLITE_CACHE_MB: '64', CRAWLDECK_SQLITE_MMAP_MB: '1024' };
    expect(loadConfig({ dataDir }, sqlite).sqliteCache).toEqual({ cacheMb: 64, mmapMb: 1024 });
    expect(() => loadConfig({ dataDir }, { CRAWLDECK_SQLITE_CACHE_MB: '0' })).toThrow(/CRAWLDECK_SQLITE_CACHE_MB/);
    expect(() => loadConfig({ dataDir }, { CRAWLDECK_SQLITE_MMAP_MB: '-1' })).toThrow(/CRAWLDECK_SQLITE_MMAP_MB/);
    expect(() => loadConfig({ dataDir }, { CRAWLDECK_OUTBOUND_ALLOW: 'not-a-range' })).toThrow(
      /CRAWLDECK_OUTBOUND_ALLOW/,
    );
  });

  it('reads the item limit in MiB: 16 by default, a whole number of at least 1 or the start stops', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-config-'));
    expect(loadConfig({ dataDir }, {}).maxItemBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({ dataDir }, { CRAWLDECK_MAX_ITEM_MB: '64' }).maxItemBytes).toBe(64 * 1024 * 1024);
    for (const bad of ['0', '-1', '1.5', 'lots'])
      expect(() => loadConfig({ dataDir }, { CRAWLDECK_MAX_ITEM_MB: bad })).toThrow(/CRAWLDECK_MAX_ITEM_MB/);
  });

  it('trusts no proxy by default; reads a list of addresses and ranges and stops on a bad entry', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-config-'));
    expect(loadConfig({ dataDir }, {}).trustedProxies).toEqual([]);
    const env = { CRAWLDECK_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8,fd00::/8' };
    expect(loadConfig({ dataDir }, env).trustedProxies).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    expect(() => loadConfig({ dataDir }, { CRAWLDECK_TRUSTED_PROXIES: 'proxy.example' })).toThrow(
      /CRAWLDECK_TRUSTED_PROXIES: "proxy.example" is not an IP address or CIDR range/,
    );
  });

  it('documents every variable with a default and a description', () => {
    for (const [name, v] of Object.entries(MASTER_VARIABLES)) {
      expect(name).toMatch(/^CRAWLDECK_[A-Z_]+$/);
      expect(v.default.length && v.description.length, name).toBeGreaterThan(0);
    }
  });
});
