/** The node's HTTP calls to its master (the bulk side of the connection): shipping, job reports, spider blobs. */
import { NODE_ID_HEADER, NODE_KEY_HEADER, type ShipAck, type ShipBatch } from '@crawldeck/shared';

/** The master no longer has the task (deleted, or given to another node): shipping it stops. */
class HttpGone extends Error {
  gone = true;
}

export class MasterHttp {
  readonly headers: Record<string, string>;

  constructor(
    readonly base: string,
    key: string,
    nodeId: string,
  ) {
    this.headers = { [NODE_KEY_HEADER]: key, [NODE_ID_HEADER]: nodeId };
  }

  /** Ships a batch of a task's log lines or items; the answer is the offset the master has stored. */
  async ship(kind: 'logs' | 'items', taskId: string, batch: ShipBatch): Promise<ShipAck> {
    const res = await fetch(`${this.base}/api/node-api/tasks/${taskId}/${kind}`, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    if (res.status === 410 || res.status === 404) throw new HttpGone(`task ${taskId} is gone`);
    if (!res.ok) throw new Error(`shipping ${kind} failed: ${res.status}`);
    const body = (await res.json()) as { data: ShipAck };
    return body.data;
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
