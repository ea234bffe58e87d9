import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A MariaDB server of a test's own, so the test may stop and start it: a fresh data dir in a temp dir, root
 * without a password, listening on 127.0.0.1 on a free port of the given range. stop() kills it (as a crash or a
 * network cut would look to its clients) and start() brings the same data back.
 */
export interface MariaDbServer {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server's process (SIGSTOP): connections stay open and nothing answers, as a frozen host would. */
  freeze(): void;
  /** Lets a frozen server go on (SIGCONT). */
  thaw(): void;
  destroy(): Promise<void>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Resolves when the port accepts connections (the server is ready), rejects after `ms`. */
async function waitListening(port: number, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => s.end(() => resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`MariaDB did not listen on ${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startMariaDbServer(firstPort: number, lastPort: number): Promise<MariaDbServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crawldeck-mariadb-'));
  const data = path.join(dir, 'data');
  await run(
    'mariadb-install-db',
    ['--no-defaults', `--datadir=${data}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db'],
    { timeout: 120_000 },
  );
  let port = 0;
  for (let p = firstPort; p <= lastPort && !port; p++) if (await portFree(p)) port = p;
  if (!port) throw new Error(`no free port in ${firstPort}-${lastPort} for MariaDB`);
  let proc: ChildProcess | undefined;
  const start = async () => {
    proc = spawn(
      'mariadbd',
      [
        '--no-defaults',
        '--user=root',
        `--datadir=${data}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${path.join(dir, 'sock')}`,
        `--pid-file=${path.join(dir, 'pid')}`,
        '--skip-log-bin',
        '--innodb-buffer-pool-size=16M',
        `--log-error=${path.join(dir, 'error.log')}`,
      ],
      { stdio: 'ignore' },
    );
    await waitListening(port, 60_000);
  };
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    start,
    stop,
    freeze: () => proc?.kill('SIGSTOP'),
    thaw: () => proc?.kill('SIGCONT'),
    async destroy() {
      proc?.kill('SIGCONT');
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
