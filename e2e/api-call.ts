/**
 * A journey's calls to the master's API beside the browser: set up data (spiders, tasks) and read what the console
 * should show. A refused call throws with its status and message, so a journey fails where its setup failed.
 */
export type ApiCall = <T = any>(token: string, method: string, route: string, body?: unknown) => Promise<T>;

/** Calls of `/api…` on the master at `baseUrl()` (read on each call: the master starts after the file loads). */
export function apiCaller(baseUrl: () => string): ApiCall {
  return async <T>(token: string, method: string, route: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl()}/api${route}`, {
      method,
      headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { data: T; error?: string };
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${json.error}`);
    return json.data;
  };
}
