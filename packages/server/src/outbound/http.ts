import { Agent, buildConnector, fetch, type Dispatcher } from 'undici';
import { AddressPolicy, OutboundRefused } from './addresses.ts';

/**
 * HTTP for requests the master makes for users: every connection (the first one and each redirect's) resolves
 * its host, checks the addresses against the policy and connects to a checked address, so a DNS answer that
 * changes between check and connect cannot reach a refused address. Bodies are read as a stream and abandoned
 * beyond a byte limit.
 */
export function guardedAgent(policy: AddressPolicy, connectTimeoutMs = 10_000): Agent {
  const base = buildConnector({ timeout: connectTimeoutMs });
  return new Agent({
    connect: (opts, callback) => {
      policy.resolve(opts.hostname).then(
        (addresses) => base({ ...opts, hostname: addresses[0].address }, callback),
        (err: Error) => callback(err, null),
      );
    },
  });
}

export class ResponseTooLarge extends Error {
  constructor(
    readonly url: string,
    readonly limit: number,
  ) {
    super(`the answer of ${url} is larger than ${formatBytes(limit)}; reading stopped there`);
  }
}

export const formatBytes = (n: number) =>
  n >= 1024 * 1024 && n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;

export interface LimitedRequest {
  dispatcher: Dispatcher;
  maxBytes: number;
  signal?: AbortSignal;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  redirect?: 'follow' | 'manual';
  /** 'truncate': keep the first maxBytes and stop reading; default: fail with ResponseTooLarge. */
  overflow?: 'error' | 'truncate';
}

export interface LimitedResponse {
  status: number;
  url: string;
  contentType: string;
  body: Buffer;
}

/** The refusal behind a failed fetch (undici wraps connect errors as `fetch failed` with a cause). */
export function refusalOf(err: unknown): OutboundRefused | null {
  for (let e = err as { cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof OutboundRefused) return e;
  }
  return null;
}

/** Fetches an http(s) URL through `dispatcher`, reading at most `maxBytes` of the (decoded) body. */
export async function fetchLimited(url: string, req: LimitedRequest): Promise<LimitedResponse> {
  const protocol = new URL(url).protocol;
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new OutboundRefused(`only http and https URLs are fetched, not ${protocol}`);
  let res;
  try {
    res = await fetch(url, {
      dispatcher: req.dispatcher,
      signal: req.signal,
      method: req.method,
      headers: req.headers,
      body: req.body,
      redirect: req.redirect ?? 'follow',
    });
  } catch (err) {
    throw refusalOf(err) ?? err;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      if (size + chunk.length > req.maxBytes) {
        if (req.overflow !== 'truncate') throw new ResponseTooLarge(res.url || url, req.maxBytes);
        chunks.push(Buffer.from(chunk.subarray(0, req.maxBytes - size)));
        break;
      }
      size += chunk.length;
      chunks.push(Buffer.from(chunk));
    }
  }
  return {
    status: res.status,
    url: res.url || url,
    contentType: res.headers.get('content-type') ?? '',
    body: Buffer.concat(chunks),
  };
}
