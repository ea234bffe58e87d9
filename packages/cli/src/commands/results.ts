import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ApiClient } from '../api-client.ts';

const PAGE = 1000;

/**
 * A task's results on stdout: `csv` streams the master's CSV export as it comes; `json` writes one JSON array,
 * read page by page so a large result set never sits in memory whole.
 */
export async function results(api: ApiClient, taskId: string, opts: { format: string; bom?: boolean }): Promise<void> {
  if (opts.format === 'csv') {
    const res = await api.stream(`/tasks/${taskId}/results/download`, opts.bom ? { bom: 1 } : undefined);
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), process.stdout, { end: false });
    return;
  }
  if (opts.format !== 'json') throw new Error(`--format is csv or json, not "${opts.format}"`);
  process.stdout.write('[');
  let first = true;
  for (let page = 1; ; page++) {
    const { data, total } = await api.call<Record<string, unknown>[]>('GET', `/tasks/${taskId}/results`, {
      query: { page_num: page, page_size: PAGE },
    });
    for (const row of data) {
      const { _id: _ignored, task_id: _task, ...item } = row;
      process.stdout.write(`${first ? '\n' : ',\n'}  ${JSON.stringify(item)}`);
      first = false;
    }
    if (data.length < PAGE || page * PAGE >= (total ?? 0)) break;
  }
  process.stdout.write(first ? ']\n' : '\n]\n');
}
