import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import {
  asTaskUser,
  baseEnv,
  giveTree,
  removeUserTreeAsync,
  taskIdentity,
  type TaskIdentity,
} from '@crawldeck/node/user-code';
import type { DB } from '../../store/schema.ts';
import { listFiles, readFile, writeFile } from '../spiders/files.store.ts';

/**
 * A temporary checkout of a spider's files (materialised from the store) for tools that work on real files:
 * the Scrapy helper, `scrapy genspider`, the configurable-spider converter. `writeBack` stores the files the tool
 * created or changed (never deletes, skips caches and byte code).
 *
 * The tools run the user's code, so the checkout lives in the system temp dir (never in the data dir) and, when
 * the master is root, belongs to the task user the tools run as (`identity`); it is then read back and removed
 * by that user too, so a link planted by the user's code cannot make the master read or delete anything else.
 */
export interface Checkout {
  dir: string;
  identity: TaskIdentity | undefined;
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

/** Regular files of a tree that the task user may write, read as that user: `[path, base64]` pairs. */
const DUMP = `
import base64, json, os, sys
out = []
for root, dirs, files in os.walk('.'):
    dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
    for f in files:
        p = os.path.join(root, f)
        if os.path.islink(p) or not os.path.isfile(p):
            continue
        with open(p, 'rb') as fh:
            out.append([os.path.relpath(p, '.').replace(os.sep, '/'), base64.b64encode(fh.read()).decode()])
json.dump(out, sys.stdout)
`;

function readTreeAs(dir: string, python: string, id: TaskIdentity): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-I', '-c', DUMP], {
      cwd: dir,
      env: baseEnv(dir),
      stdio: ['ignore', 'pipe', 'ignore'],
      ...asTaskUser(id),
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`reading the checkout failed: exit code ${code}`));
      try {
        const pairs = JSON.parse(Buffer.concat(chunks).toString('utf8')) as [string, string][];
        resolve(new Map(pairs.map(([p, b]) => [p, Buffer.from(b, 'base64')])));
      } catch (err) {
        reject(err as Error);
      }
    });
  });
}

export async function checkout(db: Kysely<DB>, spiderId: string, python: string, taskUser: string): Promise<Checkout> {
  const identity = taskIdentity(taskUser);
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
    giveTree(dir, identity);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const current = async (): Promise<Map<string, Buffer>> => {
    if (identity) return readTreeAs(dir, python, identity);
    return new Map(walkFiles(dir).map((rel) => [rel, readFileSync(path.join(dir, rel))]));
  };
  return {
    dir,
    identity,
    async writeBack() {
      const changed: string[] = [];
      for (const [rel, content] of [...(await current())].sort(([a], [b]) => a.localeCompare(b))) {
        if (IGNORED.test(rel) || before.get(rel) === hash(content)) continue;
        await writeFile(db, spiderId, rel, content);
        before.set(rel, hash(content));
        changed.push(rel);
      }
      return changed;
    },
    dispose() {
      // In the background: removing as the task user is a process of its own, the master does not wait for it.
      void removeUserTreeAsync(dir, identity);
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
