import type { TaskChange } from '@crawldeck/shared';

/** Reads a Server-Sent Events response in a test: every event with the time it arrived, and waits for one. */
export interface SseEvent {
  event: string;
  data: any;
  at: number;
}

/** Opens the master's event stream (`/api/events`) as `token`'s user; fails the test unless it answers 200. */
export async function subscribeEvents(baseUrl: string, token: string, query = ''): Promise<SseReader> {
  const res = await fetch(`${baseUrl}/api/events${query}`, { headers: { authorization: token } });
  if (res.status !== 200) throw new Error(`GET /api/events answered ${res.status}`);
  return new SseReader(res);
}

/** The task changes an event of the stream carries (none for other kinds of event). */
export const taskChanges = (e: SseEvent): TaskChange[] => (e.event === 'tasks' ? (e.data.tasks as TaskChange[]) : []);

export class SseReader {
  readonly events: SseEvent[] = [];
  private buf = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly dec = new TextDecoder();
  private ended = false;

  constructor(res: Response) {
    this.reader = res.body!.getReader();
  }

  /** Reads until `match` holds for an event read so far (checked from the start), or the stream ends. */
  async until(match: (e: SseEvent) => boolean): Promise<SseEvent> {
    for (;;) {
      const hit = this.events.find(match);
      if (hit) return hit;
      if (this.ended) throw new Error('event stream ended before the awaited event');
      const { value, done } = await this.reader.read();
      if (done) this.ended = true;
      else this.take(this.dec.decode(value, { stream: true }));
    }
  }

  named(event: string): SseEvent[] {
    return this.events.filter((e) => e.event === event);
  }

  async close(): Promise<void> {
    await this.reader.cancel();
  }

  private take(text: string): void {
    this.buf += text;
    let idx: number;
    while ((idx = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, idx);
      this.buf = this.buf.slice(idx + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (data) this.events.push({ event, data: JSON.parse(data), at: Date.now() });
    }
  }
}
