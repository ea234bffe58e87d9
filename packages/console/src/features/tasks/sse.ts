/**
 * Server-Sent Events over fetch. EventSource cannot send headers; `/api/events` accepts the token only in the
 * Authorization header (`/api/tasks/:id/stream` also takes `?token=`), so both streams are read with fetch and
 * the same header the request helper sends — the token never lands in a URL or an access log.
 * Reconnects after the server's `retry:` delay (2 s) with a capped backoff until closed.
 */
import { API_BASE, getToken } from '../../api/request.ts';

export interface SseHandlers {
  onEvent(event: string, data: unknown): void;
  onOpen?(): void;
}

/** Opens a stream; `path` is re-evaluated on every (re)connect (e.g. to resume from the last line). */
export function openSse(path: () => string, handlers: SseHandlers): () => void {
  let closed = false;
  let controller: AbortController | null = null;
  let retryMs = 2000;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const connect = async () => {
    if (closed) return;
    controller = new AbortController();
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    const token = getToken();
    if (token) headers.Authorization = token;
    try {
      const res = await fetch(`${API_BASE.replace(/\/+$/, '')}${path()}`, {
        headers,
        signal: controller.signal,
        cache: 'no-store',
      });
      if (!res.ok || !res.body) throw new Error(`SSE ${res.status}`);
      failures = 0;
      handlers.onOpen?.();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let idx: number;
        while ((idx = buf.search(/\r?\n\r?\n/)) >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + (buf[idx] === '\r' ? 4 : 2));
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split(/\r?\n/)) {
            if (!line || line.startsWith(':')) continue;
            const c = line.indexOf(':');
            const field = c < 0 ? line : line.slice(0, c);
            const val = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
            if (field === 'event') event = val;
            else if (field === 'data') data.push(val);
            else if (field === 'retry' && /^\d+$/.test(val)) retryMs = Number(val);
          }
          if (!data.length) continue;
          let parsed: unknown = data.join('\n');
          try {
            parsed = JSON.parse(parsed as string);
          } catch {
            /* plain text */
          }
          if (!closed) handlers.onEvent(event, parsed);
        }
      }
    } catch {
      failures++;
    }
    if (!closed) timer = setTimeout(() => void connect(), Math.min(retryMs * Math.max(1, failures), 30_000));
  };
  void connect();
  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    controller?.abort();
  };
}

// ------------------------------------------------------------------ one shared /api/events connection per tab

type Listener = (event: string, data: unknown) => void;
const listeners = new Set<Listener>();
let closeShared: (() => void) | null = null;

/**
 * Nodes whose heartbeats (metrics, last seen) the screens shown now need, with how many screens ask for each. The
 * stream is opened with them (`?nodes=`); without any it carries node status changes only.
 */
const watched = new Map<string, number>();
/** The master accepts at most this many watched nodes (a page of the node list). */
const MAX_WATCHED = 100;
let rewatchTimer: ReturnType<typeof setTimeout> | null = null;

function eventsPath(): string {
  const ids = [...watched.keys()].sort().slice(0, MAX_WATCHED);
  return ids.length ? `/events?nodes=${ids.join(',')}` : '/events';
}

function openShared(): void {
  closeShared = openSse(eventsPath, {
    onEvent: (event, data) => listeners.forEach((l) => l(event, data)),
    // After a reconnect we may have missed events: let listeners resync.
    onOpen: () => listeners.forEach((l) => l('open', null)),
  });
}

/** The watched nodes changed: the shared stream reopens with them, once for a burst of changes. */
function rewatch(): void {
  if (rewatchTimer) return;
  rewatchTimer = setTimeout(() => {
    rewatchTimer = null;
    if (!closeShared) return;
    closeShared();
    openShared();
  }, 50);
}

/** Subscribes to the master's event stream (`tasks`, `nodes`); the connection lives while anyone listens. */
export function subscribeEvents(listener: Listener): () => void {
  listeners.add(listener);
  if (!closeShared) openShared();
  return () => {
    listeners.delete(listener);
    if (!listeners.size && closeShared) {
      closeShared();
      closeShared = null;
    }
  };
}

/** Asks the stream for the heartbeats of these nodes while the returned function is not called. */
export function watchNodes(ids: readonly string[]): () => void {
  let added = false;
  for (const id of ids) {
    const n = watched.get(id) ?? 0;
    watched.set(id, n + 1);
    if (!n) added = true;
  }
  if (added) rewatch();
  return () => {
    let removed = false;
    for (const id of ids) {
      const n = watched.get(id) ?? 0;
      if (n <= 1) {
        watched.delete(id);
        removed = true;
      } else watched.set(id, n - 1);
    }
    // A page change unwatches and watches within the same moment: one reopen for both.
    if (removed) rewatch();
  };
}
