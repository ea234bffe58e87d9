import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A git smart-HTTP server on 127.0.0.1 (git http-backend as CGI) over bare repositories in a temp folder, plus
 * helpers to commit into them through a working clone. Repositories under `private/` need basic auth user:pass.
 */
export interface GitHttpServer {
  url: string;
  root: string;
  /** Creates a bare repo `name.git` with one commit of `files` on `branch`; returns its clone URL. */
  createRepo(name: string, files: Record<string, string>, branch?: string): string;
  /** Commits `files` (null deletes) on top of `branch` and pushes; returns the new commit hash. */
  commit(name: string, files: Record<string, string | null>, message: string, branch?: string): string;
  close(): Promise<void>;
}

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

export async function startGitHttpServer(auth = { user: 'alice', pass: 's3cret-pw' }): Promise<GitHttpServer> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-gitsrv-'));
  const repos = path.join(root, 'repos');
  mkdirSync(repos);
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname.startsWith('/private/')) {
      const expected = 'Basic ' + Buffer.from(`${auth.user}:${auth.pass}`).toString('base64');
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' });
        return res.end('auth required');
      }
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: repos,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(u.pathname),
        QUERY_STRING: u.search.slice(1),
        REQUEST_METHOD: req.method,
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: (req.headers['git-protocol'] as string) ?? '',
        REMOTE_USER: 'test',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headerDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headerDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const idx = head.indexOf('\r\n\r\n');
      if (idx < 0) return;
      headerDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, idx).toString().split('\r\n')) {
        const [k, ...v] = line.split(':');
        if (k.toLowerCase() === 'status') status = parseInt(v.join(':').trim(), 10);
        else headers[k] = v.join(':').trim();
      }
      res.writeHead(status, headers);
      res.write(head.subarray(idx + 4));
    });
    cgi.stdout.on('end', () => res.end());
    cgi.on('error', () => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  const work = path.join(root, 'work');
  mkdirSync(work);

  const writeFiles = (dir: string, files: Record<string, string | null>) => {
    for (const [p, content] of Object.entries(files)) {
      const full = path.join(dir, p);
      if (content === null) rmSync(full, { force: true });
      else {
        mkdirSync(path.dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
    }
  };

  return {
    url,
    root,
    createRepo(name, files, branch = 'main') {
      const bare = path.join(repos, `${name}.git`);
      mkdirSync(path.dirname(bare), { recursive: true });
      git(root, 'init', '--quiet', '--bare', `--initial-branch=${branch}`, bare);
      const wc = path.join(work, name);
      mkdirSync(wc, { recursive: true });
      git(wc, 'init', '--quiet', `--initial-branch=${branch}`);
      writeFiles(wc, files);
      git(wc, 'add', '-A');
      git(wc, 'commit', '--quiet', '-m', 'initial commit');
      git(wc, 'remote', 'add', 'origin', bare);
      git(wc, 'push', '--quiet', 'origin', branch);
      return `${url}/${name}.git`;
    },
    commit(name, files, message, branch = 'main') {
      const wc = path.join(work, name);
      const current = git(wc, 'rev-parse', '--abbrev-ref', 'HEAD');
      if (current !== branch) git(wc, 'checkout', '--quiet', '-B', branch);
      writeFiles(wc, files);
      git(wc, 'add', '-A');
      git(wc, 'commit', '--quiet', '-m', message);
      git(wc, 'push', '--quiet', 'origin', branch);
      return git(wc, 'rev-parse', 'HEAD');
    },
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
