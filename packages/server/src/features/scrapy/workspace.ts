import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { listFiles, readFile, writeFile } from '../spiders/files.store.ts';

/**
 * A temporary checkout of a spider's files (materialised from the store) for tools that work on real files:
 * the Scrapy helper, `scrapy genspider`, the configurable-spider converter. `writeBack` stores the files the tool
 * created or changed (never deletes, skips caches and byte code).
 */
export interface Checkout {
  dir: string;
  writeBack(): Promise<string[]>;
  dispose(): void;
}

const IGNORED = /(^|\/)(__pycache__|\.git)(\/|$)|\.py[co]$/;
const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Regular files under `root` as relative POSIX paths; symbolic links are skipped (never followed). */
export function walkFiles(root: string, ignore: RegExp = IGNORED): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      if (ignore.test(r)) continue;
      const st = lstatSync(path.join(root, r));
      if (st.isSymbolicLink()) continue;
      if (st.isDirectory()) visit(r);
      else if (st.isFile()) out.push(r);
    }
  };
  visit('');
  return out.sort();
}

export async function checkout(db: Kysely<DB>, spiderId: string): Promise<Checkout> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-ws-'));
  const before = new Map<string, string>();
  try {
    for (const entry of await listFiles(db, spiderId)) {
      const target = path.join(dir, entry.path);
      if (entry.is_dir) {
        mkdirSync(target, { recursive: true });
        continue;
      }
      const content = (await readFile(db, spiderId, entry.path)) ?? Buffer.alloc(0);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content);
      before.set(entry.path, hash(content));
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dir,
    async writeBack() {
      const changed: string[] = [];
      for (const rel of walkFiles(dir)) {
        const content = readFileSync(path.join(dir, rel));
        if (before.get(rel) === hash(content)) continue;
        await writeFile(db, spiderId, rel, content);
        before.set(rel, hash(content));
        changed.push(rel);
      }
      return changed;
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Serialises writers per key (one spider's files) within this process. */
export class KeyedMutex {
  private tails = new Map<string, Promise<unknown>>();
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(fn);
    this.tails.set(key, next);
    try {
      return await next;
    } finally {
      if (this.tails.get(key) === next) this.tails.delete(key);
    }
  }
}
