import type { FastifyBaseLogger } from 'fastify';

const TIMEOUT_MS = 3000;
const MAX_IN_FLIGHT = 20;

/**
 * Fire-and-forget forwarding of usage actions to an admin-configured third-party endpoint. Runs on the master
 * only (the browser never talks to a third party); bounded in flight so a slow endpoint cannot pile up requests.
 */
export class StatsForwarder {
  private inFlight = 0;
  dropped = 0;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  forward(endpoint: string, event: Record<string, unknown>): Promise<void> | undefined {
    if (!endpoint) return undefined;
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.dropped++;
      return undefined;
    }
    this.inFlight++;
    return this.fetchImpl(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
      .then((res) => {
        if (!res.ok) this.log.debug({ status: res.status }, 'stats endpoint answered an error');
        return res.body?.cancel();
      })
      .catch((err: Error) => this.log.debug({ err: err.message }, 'stats endpoint unreachable'))
      .finally(() => {
        this.inFlight--;
      });
  }
}

export function isValidStatsEndpoint(url: string): boolean {
  if (url === '') return true;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
