/**
 * Package indexes on loopback for the environment tests, holding packages the test builds itself: a PEP 503
 * simple index with wheels made by `pip wheel` from a tiny package written here, and an npm-registry-compatible
 * server (packument JSON + tarballs made by `npm pack`). Real pip and npm install from them; nothing leaves the host.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PackageIndexes {
  /** `http://127.0.0.1:PORT/simple/` */
  pipIndex: string;
  /** `http://127.0.0.1:PORT/npm` */
  npmRegistry: string;
  close(): Promise<void>;
}

const PYTHON = '/usr/bin/python3';

/** Wheels of the Python package `name` (module `module`), one per version; `VERSION` in the module says which. */
function buildWheels(dir: string, name: string, module: string, versions: string[]): string[] {
  const out = path.join(dir, 'wheels');
  mkdirSync(out, { recursive: true });
  for (const v of versions) {
    const src = path.join(dir, `${name}-${v}`);
    mkdirSync(src, { recursive: true });
    writeFileSync(path.join(src, `${module}.py`), `VERSION = ${JSON.stringify(v)}\n`);
    writeFileSync(
      path.join(src, 'setup.py'),
      `from setuptools import setup\nsetup(name=${JSON.stringify(name)}, version=${JSON.stringify(v)}, py_modules=[${JSON.stringify(module)}])\n`,
    );
    execFileSync(
      PYTHON,
      ['-m', 'pip', 'wheel', '--no-build-isolation', '--no-deps', '--no-index', '-q', '-w', out, src],
      {
        stdio: 'pipe',
        env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
      },
    );
  }
  return readdirSync(out).filter((f) => f.endsWith('.whl'));
}

/** Tarballs of the npm package `name`, one per version, made by `npm pack`. */
function buildTarballs(dir: string, name: string, versions: string[]): Map<string, Buffer> {
  const tarballs = new Map<string, Buffer>();
  for (const v of versions) {
    const src = path.join(dir, `npm-${name}-${v}`);
    mkdirSync(src, { recursive: true });
    writeFileSync(path.join(src, 'package.json'), JSON.stringify({ name, version: v, main: 'index.js' }));
    writeFileSync(path.join(src, 'index.js'), `module.exports = { version: ${JSON.stringify(v)} };\n`);
    const file = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], {
      cwd: src,
      encoding: 'utf8',
    }).trim();
    tarballs.set(v, readFileSync(path.join(dir, file.split('\n').pop()!)));
  }
  return tarballs;
}

export async function startPackageIndexes(opts: {
  pip: { name: string; module: string; versions: string[] };
  npm: { name: string; versions: string[] };
  /** When set, every request must carry these credentials (HTTP basic), as a private index wants. */
  auth?: { user: string; password: string };
}): Promise<PackageIndexes> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-pkg-index-'));
  const wheels = buildWheels(dir, opts.pip.name, opts.pip.module, opts.pip.versions);
  const tarballs = buildTarballs(dir, opts.npm.name, opts.npm.versions);
  const project = opts.pip.name.toLowerCase().replace(/[-_.]+/g, '-');
  let base = '';
  const packument = () => {
    const versions: Record<string, unknown> = {};
    for (const [v, tgz] of tarballs)
      versions[v] = {
        name: opts.npm.name,
        version: v,
        main: 'index.js',
        dist: {
          tarball: `${base}/npm/${opts.npm.name}/-/${opts.npm.name}-${v}.tgz`,
          shasum: createHash('sha1').update(tgz).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
        },
      };
    const latest = [...tarballs.keys()].pop()!;
    return { name: opts.npm.name, 'dist-tags': { latest }, versions };
  };
  const expected = opts.auth && `Basic ${Buffer.from(`${opts.auth.user}:${opts.auth.password}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    if (expected && req.headers.authorization !== expected) {
      res.statusCode = 401;
      res.setHeader('www-authenticate', 'Basic realm="test index"');
      res.end('credentials required');
      return;
    }
    const url = decodeURIComponent((req.url ?? '/').split('?')[0]);
    if (url === '/simple/' || url === '/simple') {
      res.setHeader('content-type', 'text/html');
      res.end(`<html><body><a href="/simple/${project}/">${project}</a></body></html>`);
      return;
    }
    if (url === `/simple/${project}/`) {
      res.setHeader('content-type', 'text/html');
      const links = wheels.map((w) => {
        const sha = createHash('sha256')
          .update(readFileSync(path.join(dir, 'wheels', w)))
          .digest('hex');
        return `<a href="/files/${w}#sha256=${sha}">${w}</a>`;
      });
      res.end(`<html><body>${links.join('<br>')}</body></html>`);
      return;
    }
    const wheel = /^\/files\/([^/]+\.whl)$/.exec(url);
    if (wheel && wheels.includes(wheel[1])) {
      res.setHeader('content-type', 'application/octet-stream');
      res.end(readFileSync(path.join(dir, 'wheels', wheel[1])));
      return;
    }
    if (url === `/npm/${opts.npm.name}`) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(packument()));
      return;
    }
    const tgz = new RegExp(`^/npm/${opts.npm.name}/-/${opts.npm.name}-(.+)\\.tgz$`).exec(url);
    if (tgz && tarballs.has(tgz[1])) {
      res.setHeader('content-type', 'application/octet-stream');
      res.end(tarballs.get(tgz[1]));
      return;
    }
    res.statusCode = 404;
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    pipIndex: `${base}/simple/`,
    npmRegistry: `${base}/npm`,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
