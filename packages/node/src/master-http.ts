/** The node's HTTP calls to its master (the bulk side of the connection): shipping, job reports, spider blobs. */
import http from 'node:http';
import https from 'node:https';
import { NODE_ID_HEADER, NODE_KEY_HEADER, type ShipAck, type ShipBatch } from '@crawldeck/shared';

/** The master no longer has the task (deleted, or given to another node): shipping it stops. */
class HttpGone extends Error {
  gone = true;
}

/** Longest wait for a shipped batch's answer before the batch counts as failed (and is shipped again). */
const SHIP_TIMEOUT_MS = 300_000;

/** Connections kept open between batches: shipping sends several batches a second to the same master. */
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** One POST of a ready body; resolves with the status and the answer's text. */
function postBody(url: URL, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      url,
      { method: 'POST', agent: agents[secure ? 'https:' : 'http:'], headers, timeout: SHIP_TIMEOUT_MS },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url.host} in ${SHIP_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The masters a node may join, from a comma-separated list (`--master`, `CRAWLDECK_MASTER_URL`): masters sharing one
 * PostgreSQL store are interchangeable, so a node whose master is gone carries on with the next one. Blanks and
 * trailing slashes are dropped; a list without any URL is refused.
 */
export function parseMasterUrls(list: string): string[] {
  const urls = list
    .split(',')
    .map((u) => u.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  if (!urls.length) throw new Error("the master's URL is needed");
  for (const u of urls) {
    const parsed = URL.canParse(u) ? new URL(u) : undefined;
    if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:')
      throw new Error(`not an http(s) URL of a master: ${u}`);
  }
  return urls;
}

export class MasterHttp {
  readonly headers: Record<string, string>;
  private current = 0;

  constructor(
    /** Every master the node may join, in the order it tries them. */
    readonly urls: readonly string[],
    key: string,
    nodeId: string,
  ) {
    if (!urls.length) throw new Error("the master's URL is needed");
    this.headers = { [NODE_KEY_HEADER]: key, [NODE_ID_HEADER]: nodeId };
  }

  /** The key every call presents from now on (the node's own, once the master gave it one). */
  useKey(key: string): void {
    this.headers[NODE_KEY_HEADER] = key;
  }

  get key(): string {
    return this.headers[NODE_KEY_HEADER];
  }

  /** The master the node talks to now: its control connection and every HTTP call go there. */
  get base(): string {
    return this.urls[this.current];
  }

  /**
   * The control connection to the current master broke or could not be made: the next one in the list is tried
   * (the same one again when there is only one). Batches in flight to the old master fail and are shipped again
   * from the acknowledged offset, which every master reads from the shared store, so nothing is lost or doubled.
   */
  moveOn(): void {
    this.current = (this.current + 1) % this.urls.length;
  }

  /**
   * Ships a batch of a task's log lines or items; the answer is the offset the master has stored. The body is
   * written once, as one block of bytes, straight to a kept-open connection (the shipper sends thousands of
   * lines a batch, so the copies a general-purpose client makes of it would cost more than writing it).
   */
  async ship(kind: 'logs' | 'items', taskId: string, batch: ShipBatch): Promise<ShipAck> {
    const body = Buffer.from(JSON.stringify(batch), 'utf8');
    const url = new URL(`${this.base}/api/node-api/tasks/${taskId}/${kind}`);
    const headers = { ...this.headers, 'content-type': 'application/json', 'content-length': String(body.length) };
    const res = await postBody(url, headers, body);
    if (res.status === 410 || res.status === 404) throw new HttpGone(`task ${taskId} is gone`);
    if (res.status < 200 || res.status > 299) throw new Error(`shipping ${kind} failed: ${res.status}`);
    return (JSON.parse(res.text) as { data: ShipAck }).data;
  }

  async postJson<T>(route: string, body: unknown): Promise<T> {
    const res = await fetch(`${this.base}${route}`, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${route}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  }

  async fetchBlob(hash: string): Promise<Buffer> {
    const res = await fetch(`${this.base}/api/node-api/blobs/${hash}`, { headers: this.headers });
    if (!res.ok) throw new Error(`blob ${hash}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }
}
