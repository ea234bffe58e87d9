/**
 * Signing in as the admin to a master started as a process of its own: waits for it to listen and answers the
 * session token (a master killed and started again is waited for the same way).
 */
import { waitFor } from '../tasks.helpers.ts';

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
