import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';

/**
 * What `crawldeck deploy` sends: the folder as a zip. A Scrapy project is found the way scrapyd-deploy finds it,
 * by the scrapy.cfg in the given folder or the closest folder above it; its `[deploy] project` names the spider
 * unless --name does. Version-control folders, virtual environments, caches and node_modules stay behind.
 */

const SKIPPED_DIRS = new Set([
  '.git',
  '.hg',
  '.svn',
  '.venv',
  'venv',
  '__pycache__',
  'node_modules',
  '.mypy_cache',
  '.pytest_cache',
  '.idea',
  '.vscode',
  '.tox',
]);
const SKIPPED_FILES = /\.(pyc|pyo)$|^\.DS_Store$/;

export interface DeployFolder {
  root: string;
  /** Spider name suggested by the folder (scrapy.cfg's project, else the folder's name). */
  name: string;
  isScrapy: boolean;
}

function scrapyProjectName(cfg: string): string | undefined {
  let section = '';
  for (const raw of cfg.split(/\r?\n/)) {
    const line = raw.trim();
    const s = /^\[(.+)\]$/.exec(line);
    if (s) section = s[1];
    const kv = /^project\s*[=:]\s*(\S+)/.exec(line);
    if (kv && section.startsWith('deploy')) return kv[1];
  }
  return undefined;
}

export function findDeployFolder(dir: string): DeployFolder {
  const start = path.resolve(dir);
  if (!existsSync(start) || !statSync(start).isDirectory()) throw new Error(`${dir} is not a folder`);
  for (let d = start; ; d = path.dirname(d)) {
    const cfg = path.join(d, 'scrapy.cfg');
    if (existsSync(cfg))
      return { root: d, name: scrapyProjectName(readFileSync(cfg, 'utf8')) ?? path.basename(d), isScrapy: true };
    if (path.dirname(d) === d) break;
  }
  return { root: start, name: path.basename(start), isScrapy: false };
}

export function listDeployFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(p);
      } else if (entry.isFile() && !SKIPPED_FILES.test(entry.name)) out.push(p);
    }
  };
  walk('');
  return out.sort();
}

export function zipFolder(root: string, files: string[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(path.join(root, f), f);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}
