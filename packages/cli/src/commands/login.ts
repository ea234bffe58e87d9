import os from 'node:os';
import readline from 'node:readline';
import { ApiClient } from '../api-client.ts';
import { readSettings, writeSettings } from '../user-config.ts';
import { printJson, type Output } from '../output.ts';

export interface LoginOptions {
  url?: string;
  username?: string;
  passwordStdin?: boolean;
  token?: string;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Asks for a line on the terminal; `hidden` keeps a password off the screen. */
function ask(question: string, hidden = false): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (hidden)
    (rl as unknown as { _writeToOutput(s: string): void })._writeToOutput = (s: string) =>
      void (s.startsWith(question) && process.stderr.write(question));
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stderr.write('\n');
      resolve(answer);
    }),
  );
}

/**
 * Signs in once and keeps an API token (not the password, not a session) in the user's config: with a password
 * the CLI creates a token named after this machine and ends the session it used; --token stores a token made in
 * the console.
 */
export async function login(opts: LoginOptions, out: Output): Promise<void> {
  const url = opts.url ?? readSettings().url;
  if (!url) throw new Error('give the master with --url http://MASTER:8080');
  let token = opts.token;
  if (!token) {
    const username = opts.username ?? (await ask('Username: '));
    const password = opts.passwordStdin ? await readStdin() : await ask('Password: ', true);
    const anon = new ApiClient(url);
    const session = (await anon.call<string>('POST', '/login', { body: { username, password } })).data;
    const asSession = new ApiClient(url, session);
    const created = await asSession.call<{ token: string }>('PUT', '/tokens', {
      body: { name: `crawldeck CLI on ${os.hostname()}`.slice(0, 100) },
    });
    token = created.data.token;
    await asSession.call('POST', '/logout').catch(() => undefined);
  }
  const me = (await new ApiClient(url, token).call<{ username: string }>('GET', '/me')).data;
  const file = writeSettings({ url, token });
  if (out.json) return printJson({ url, username: me.username, config: file });
  process.stdout.write(`Signed in to ${url} as ${me.username}; the token is kept in ${file}\n`);
}
