import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A PostgreSQL server of a test's own, so the test may stop and start it: a fresh cluster in a temp dir with trust
 * auth, listening on 127.0.0.1 on a free port of the given range, its unix socket in the temp dir. The server
 * runs as the `postgres` OS user (it refuses root). Commands run asynchronously: masters in this process keep
 * running while the server stops or starts.
 */
export interface PgServer {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: sessions are terminated, as in a restart. Resolves when the server is down. */
  stop(): Promise<void>;
  /** Resolves when the server accepts connections again. */
  start(): Promise<void>;
  /** Stops the server (if running) and removes its directory. */
  destroy(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(root, v, 'bin')).find((d) => existsSync(path.join(d, 'initdb')));
  if (!found) throw new Error(`no PostgreSQL binaries under ${root}/*/bin`);
  return found;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function asPostgres(cmd: string, args: string[]): Promise<void> {
  await run('runuser', ['-u', 'postgres', '--', cmd, ...args], { timeout: 60_000 });
}

export async function startPgServer(firstPort: number, lastPort: number, database = 'crawldeck'): Promise<PgServer> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-pg-'));
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  const data = path.join(dir, 'data');
  const pgCtl = path.join(bin, 'pg_ctl');
  let port = 0;
  const start = () =>
    asPostgres(pgCtl, [
      '-D',
      data,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  const stop = (mode: 'fast' | 'immediate') => asPostgres(pgCtl, ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
  try {
    await asPostgres(path.join(bin, 'initdb'), [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-N',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    // Another process may take a free port between the check and the start: then try the next one.
    for (let p = firstPort; p <= lastPort && !port; p++) {
      if (!(await portFree(p))) continue;
      port = p;
      await start().catch(() => (port = 0));
    }
    if (!port) throw new Error(`no free port in ${firstPort}-${lastPort} for PostgreSQL`);
    await asPostgres(path.join(bin, 'psql'), [
      '-h',
      dir,
      '-p',
      String(port),
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-qc',
      `CREATE DATABASE ${database}`,
    ]);
  } catch (err) {
    if (port) await stop('immediate').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${database}`,
    port,
    async stop() {
      await stop('fast');
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async destroy() {
      if (running) await stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
