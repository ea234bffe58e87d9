import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real Scrapyd client (scrapyd-deploy and its Python API) run with the system Python, as an operator migrating
 * from Scrapyd would run it. Passwords go through the environment, never the command line.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
export const CLIENT_DIR =
  process.env.CRAWLDECK_SCRAPYD_CLIENT ?? path.resolve(here, '../../../../shared/clients/scrapyd-client');
const PYTHON = '/usr/bin/python3';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runPython(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, PYTHONPATH: CLIENT_DIR, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Calls one method of scrapyd_client's ScrapydClient and returns its answer as JSON, or `{error}` with the
 * message of the client's ErrorResponse.
 */
export async function client(
  url: string,
  user: { username: string; password: string },
  method: string,
  ...args: unknown[]
): Promise<any> {
  const code = [
    'import json, os, sys',
    'from scrapyd_client.pyclient import ScrapydClient',
    'from scrapyd_client.exceptions import ErrorResponse',
    "c = ScrapydClient(os.environ['SD_URL'], os.environ['SD_USER'], os.environ['SD_PASSWORD'])",
    "args = json.loads(os.environ['SD_ARGS'])",
    'try:',
    "    out = getattr(c, os.environ['SD_METHOD'])(*args)",
    'except ErrorResponse as e:',
    "    out = {'error': str(e)}",
    'print(json.dumps(out))',
  ].join('\n');
  const r = await runPython(['-c', code], CLIENT_DIR, {
    SD_URL: url,
    SD_USER: user.username,
    SD_PASSWORD: user.password,
    SD_METHOD: method,
    SD_ARGS: JSON.stringify(args),
  });
  if (r.code !== 0) throw new Error(`scrapyd client ${method} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A Scrapy project folder whose scrapy.cfg deploys to `url` as `username` (password from SCRAPYD_PASSWORD). */
export function writeProject(dir: string, url: string, username: string, files: Record<string, string>): void {
  const all = {
    'scrapy.cfg': [
      '[settings]',
      'default = shop.settings',
      '',
      '[deploy]',
      `url = ${url}`,
      'project = shop',
      `username = ${username}`,
      'password = ${SCRAPYD_PASSWORD}',
      '',
    ].join('\n'),
    ...files,
  };
  for (const [rel, content] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
}

/** scrapyd-deploy of the project in `dir` as version `version`. */
export function deploy(dir: string, version: string, password: string): Promise<Ran> {
  return runPython(['-m', 'scrapyd_client.deploy', '-v', version], dir, { SCRAPYD_PASSWORD: password });
}

export const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
