import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TaskAssignment } from '@crawldeck/shared';

export interface SyncResult {
  filesTotal: number;
  filesChanged: number;
  bytes: number;
}

function safeJoin(root: string, rel: string): string {
  const p = path.resolve(root, rel.replace(/^\/+/, ''));
  if (p !== root && !p.startsWith(root + path.sep)) throw new Error(`unsafe file path ${rel}`);
  return p;
}

/**
 * Brings a spider workspace to the master's snapshot by content hash: a manifest (path → sha256) next to the
 * workspace records what is there, so only changed files are fetched and removed files are deleted.
 */
export async function syncWorkspace(
  root: string,
  manifestFile: string,
  files: TaskAssignment['files'],
  fetchBlob: (hash: string) => Promise<Buffer>,
): Promise<SyncResult> {
  mkdirSync(root, { recursive: true });
  let old: Record<string, string> = {};
  try {
    old = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, string>;
  } catch {
    old = {};
  }
  const next: Record<string, string> = {};
  const todo: TaskAssignment['files'] = [];
  for (const f of files) {
    next[f.path] = f.hash;
    const target = safeJoin(root, f.path);
    if (old[f.path] !== f.hash || !existsSync(target)) todo.push(f);
  }
  let bytes = 0;
  const queue = [...todo];
  const worker = async () => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      const content = await fetchBlob(f.hash);
      const got = createHash('sha256').update(content).digest('hex');
      if (got !== f.hash) throw new Error(`blob ${f.hash} of ${f.path} arrived with hash ${got}`);
      const target = safeJoin(root, f.path);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content, { mode: 0o755 });
      bytes += content.length;
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
  for (const p of Object.keys(old)) {
    if (!(p in next)) rmSync(safeJoin(root, p), { force: true });
  }
  writeFileSync(manifestFile, JSON.stringify(next));
  return { filesTotal: files.length, filesChanged: todo.length, bytes };
}
