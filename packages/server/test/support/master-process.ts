/**
 * For tests that run the master as a process of its own (to kill it -9 and start it again): a free port to start it
 * on, and signing in as the admin once it listens.
 */
import { createServer } from 'node:net';
import { waitFor } from '../tasks.helpers.ts';

/** A port nothing listens on now (the system's choice). */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Waits for the master on `url` to listen and answers an admin session token. */
export function adminTokenWhenUp(url: string, password: string, timeoutMs: number): Promise<string> {
  return waitFor(
    'master up',
    async () => {
      try {
        const r = await fetch(`${url}/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password }),
        });
        return r.ok ? ((await r.json()) as { data: string }).data : undefined;
      } catch {
        return undefined;
      }
    },
    timeoutMs,
    100,
  );
}
