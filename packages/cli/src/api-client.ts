import http from 'node:http';
import https from 'node:https';

/** Thrown for an answer with an error status: the master's message, and the status for exit codes. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Envelope<T> {
  status: 'ok' | 'error';
  data: T;
  total?: number;
  error?: string;
  message?: string;
}

export interface MultipartFile {
  field: string;
  filename: string;
  content: Buffer;
}

/** A small client of the master's HTTP API (the same routes the console uses), authenticated by an API token. */
export class ApiClient {
  readonly base: string;
  constructor(
    url: string,
    private token?: string,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.token ? { authorization: this.token } : {}), ...extra };
  }

  url(route: string, query?: Record<string, string | number | undefined>): string {
    const u = new URL(`${this.base}/api${route}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** A JSON call; returns `data` (and `total` for lists) or throws ApiError with the master's message. */
  async call<T>(
    method: string,
    route: string,
    opts: { body?: unknown; query?: Record<string, string | number | undefined> } = {},
  ): Promise<{ data: T; total?: number }> {
    const res = await this.fetch(this.url(route, opts.query), {
      method,
      headers: this.headers(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    });
    return this.envelope<T>(res.status, await res.text());
  }

  /** fetch, with a master that cannot be reached said in words rather than "fetch failed". */
  private async fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new Error(
        `cannot reach the master at ${this.base}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`,
      );
    }
  }

  private envelope<T>(status: number, text: string): { data: T; total?: number } {
    let body: Envelope<T>;
    try {
      body = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new ApiError(
        status,
        `the master answered ${status} with something that is not JSON (is ${this.base} a Crawldeck master?)`,
      );
    }
    if (status >= 400 || body.status === 'error')
      throw new ApiError(status, body.error || body.message || `HTTP ${status}`);
    return { data: body.data, total: body.total };
  }

  /** A raw GET for streamed answers (CSV download, live log stream). */
  async stream(
    route: string,
    query?: Record<string, string | number | undefined>,
    signal?: AbortSignal,
  ): Promise<Response> {
    const res = await this.fetch(this.url(route, query), { headers: this.headers(), signal });
    if (!res.ok) this.envelope(res.status, await res.text());
    return res;
  }

  /**
   * A multipart upload sent in chunks through node:http, so the caller sees the bytes go out (progress bar);
   * `onProgress(sent, total)` is called per chunk.
   */
  upload<T>(
    method: string,
    route: string,
    fields: Record<string, string>,
    file: MultipartFile,
    onProgress?: (sent: number, total: number) => void,
  ): Promise<T> {
    const boundary = `----crawldeck${Math.random().toString(16).slice(2)}`;
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries(fields))
      parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
    parts.push(
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\ncontent-type: application/zip\r\n\r\n`,
      ),
    );
    parts.push(file.content, Buffer.from(`\r\n--${boundary}--\r\n`));
    const body = Buffer.concat(parts);
    const u = new URL(this.url(route));
    const request = u.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = request(
        u,
        {
          method,
          headers: this.headers({
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': String(body.length),
          }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              resolve(this.envelope<T>(res.statusCode ?? 500, Buffer.concat(chunks).toString('utf8')).data);
            } catch (err) {
              reject(err as Error);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', (err) => reject(new Error(`upload to ${this.base} failed: ${err.message}`)));
      const CHUNK = 64 * 1024;
      let sent = 0;
      const writeMore = () => {
        while (sent < body.length) {
          const end = Math.min(sent + CHUNK, body.length);
          const more = req.write(body.subarray(sent, end));
          sent = end;
          onProgress?.(sent, body.length);
          if (!more) return void req.once('drain', writeMore);
        }
        req.end();
      };
      writeMore();
    });
  }
}
