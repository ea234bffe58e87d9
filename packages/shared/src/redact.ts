/**
 * Keeping credentials out of what people read: a URL's password (`https://user:pass@host/`) becomes `***` in every
 * logged command line, tool output and error message, and so does any secret the caller names (the same password
 * as a tool may print it decoded or percent-encoded).
 */

const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s/:@'"]*):[^\s@/'"]*@/gi;

/** `text` with every URL password and every named secret replaced by `***`. */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(URL_PASSWORD, '$1:***@');
  for (const s of secrets) if (s.length >= 3) out = out.split(s).join('***');
  return out;
}

/** The passwords of the URLs given (as written and decoded), for `redactCredentials`. */
export function urlPasswords(urls: readonly string[]): string[] {
  const found = new Set<string>();
  for (const raw of urls) {
    if (!raw) continue;
    try {
      const u = new URL(raw);
      if (u.password) {
        found.add(u.password);
        found.add(decodeURIComponent(u.password));
      }
    } catch {
      /* not a URL: nothing to hide in it */
    }
  }
  return [...found];
}

/** A URL without its user name and password, for a command line or a message. */
export function withoutCredentials(raw: string): string {
  try {
    const u = new URL(raw);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return redactCredentials(raw);
  }
}
