import type { Agent } from 'undici';
import type { Fetcher } from '@crawldeck/node/config-spider';
import type { AddressPolicy } from '../../outbound/addresses.ts';
import { ResponseTooLarge, fetchLimited, formatBytes, guardedAgent, refusalOf } from '../../outbound/http.ts';

/** Bytes one answer may have in a preview or field suggestion; the reading stops beyond. */
export const PREVIEW_RESPONSE_BYTES = 5 * 1024 * 1024;
/** Bytes all answers of one preview may have together. */
export const PREVIEW_TOTAL_BYTES = 20 * 1024 * 1024;

export interface SessionBudget {
  timeMs: number;
  responseBytes: number;
  totalBytes: number;
}

/**
 * The fetching side of one preview (or field suggestion) on the master: hard limits a Spiderfile cannot raise —
 * wall time (its TIMEOUT only shortens a request), bytes per answer and in total — and the outbound address
 * policy on every connection. Aborting `signal` stops the crawler at once.
 */
export class PreviewSession {
  readonly deadline: number;
  /** Why the last failed request failed (cleared by a later success): what the user sees when nothing came out. */
  problem = '';
  /** Why the whole session stopped early, if it did. */
  stopReason = '';
  private readonly controller = new AbortController();
  private readonly agent: Agent;
  private readonly timer: NodeJS.Timeout;
  private bytes = 0;

  constructor(
    policy: AddressPolicy,
    private readonly budget: SessionBudget,
  ) {
    this.deadline = Date.now() + budget.timeMs;
    this.agent = guardedAgent(policy, Math.min(10_000, budget.timeMs));
    this.timer = setTimeout(() => this.stop(`the time budget of ${seconds(budget.timeMs)} ran out`), budget.timeMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private stop(reason: string) {
    if (this.controller.signal.aborted) return;
    this.stopReason = reason;
    this.controller.abort(new Error(reason));
  }

  readonly fetcher: Fetcher = async (url, { userAgent, timeoutMs }) => {
    const left = this.budget.totalBytes - this.bytes;
    const maxBytes = Math.min(this.budget.responseBytes, left);
    const perRequest = AbortSignal.timeout(Math.max(1, Math.min(timeoutMs, this.deadline - Date.now())));
    try {
      const res = await fetchLimited(url, {
        dispatcher: this.agent,
        maxBytes,
        signal: AbortSignal.any([this.controller.signal, perRequest]),
        headers: { 'user-agent': userAgent, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
      this.bytes += res.body.length;
      this.problem = '';
      return { status: res.status, url: res.url, body: res.body.toString('utf8'), contentType: res.contentType };
    } catch (err) {
      this.problem = this.describe(err, url, timeoutMs, perRequest);
      if (err instanceof ResponseTooLarge && maxBytes < this.budget.responseBytes) {
        this.stop(`the answers were larger than ${formatBytes(this.budget.totalBytes)} in total`);
      }
      throw new Error(this.problem, { cause: err });
    }
  };

  private describe(err: unknown, url: string, timeoutMs: number, perRequest: AbortSignal): string {
    const refused = refusalOf(err);
    if (refused) return refused.message;
    if (err instanceof ResponseTooLarge) return err.message;
    const outOfTime = Date.now() >= this.deadline - 50;
    if (this.controller.signal.aborted && !outOfTime)
      return `${url} did not answer before the preview stopped (${this.stopReason})`;
    if (this.controller.signal.aborted || perRequest.aborted) {
      return outOfTime
        ? `${url} did not answer within the preview time budget of ${seconds(this.budget.timeMs)}`
        : `${url} did not answer within ${seconds(timeoutMs)} (settings.TIMEOUT)`;
    }
    const e = err as Error & { cause?: { message?: string } };
    return `could not load ${url}: ${e.message}${e.cause?.message ? ` (${e.cause.message})` : ''}`;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.agent.destroy().catch(() => undefined);
  }
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
