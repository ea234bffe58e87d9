import { Readable, Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ApiClient } from '../api-client.ts';

/** The formats `crawldeck results` writes. */
export const RESULT_OUTPUT_FORMATS = ['json', 'jsonl', 'csv'] as const;
export type ResultOutputFormat = (typeof RESULT_OUTPUT_FORMATS)[number];

/**
 * Turns the master's JSON lines (one item a line) into one JSON array with an item a line, as it arrives: a large
 * result set is never held whole, and a reader that stops early (`| head`) stops the download.
 */
class JsonArrayFromLines extends Transform {
  private rest = '';
  private first = true;
  // A character's bytes may be split between two chunks.
  private decoder = new StringDecoder('utf8');

  private item(line: string): void {
    if (!line) return;
    this.push(`${this.first ? '[\n' : ',\n'}  ${line}`);
    this.first = false;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const lines = (this.rest + this.decoder.write(chunk)).split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) this.item(line);
    done();
  }

  override _flush(done: TransformCallback): void {
    this.item(this.rest + this.decoder.end());
    this.push(this.first ? '[]\n' : '\n]\n');
    done();
  }
}

/**
 * A task's results on stdout, every item of them, streamed from the master's export: `json` one JSON array (an item
 * a line), `jsonl` one JSON object a line, `csv` the CSV export (with a byte order mark for Excel when asked).
 */
export async function results(
  api: ApiClient,
  taskId: string,
  opts: { format: ResultOutputFormat; bom?: boolean },
): Promise<void> {
  if (opts.bom && opts.format !== 'csv') throw new Error('--bom only applies to --format csv');
  const query = opts.format === 'csv' ? { format: 'csv', ...(opts.bom ? { bom: 1 } : {}) } : { format: 'jsonl' };
  const res = await api.stream(`/tasks/${taskId}/results/download`, query);
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  if (opts.format === 'json') await pipeline(body, new JsonArrayFromLines(), process.stdout, { end: false });
  else await pipeline(body, process.stdout, { end: false });
}
