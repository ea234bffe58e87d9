import { readFileSync } from 'node:fs';
import os from 'node:os';
import readline from 'node:readline';
import { ApiClient } from '../api-client.ts';
import { readSettings, writeSettings } from '../user-config.ts';
import { printJson, type Output } from '../output.ts';

export interface LoginOptions {
  url?: string;
  username?: string;
  passwordStdin?: boolean;
  /** Refused: a token on the command line is visible to every user of the machine (`ps`). */
  token?: string;
  tokenStdin?: boolean;
  tokenFile?: string;
}

/** Days a token made by `crawldeck login` with a password lasts; the next login replaces it. */
export const CLI_TOKEN_DAYS = 30;

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
 * A token made in the console, read from standard input or a file, never from the command line where `ps` shows
 * it to every user of the machine. Undefined when the user signs in with a password instead.
 */
async function givenToken(opts: LoginOptions): Promise<string | undefined> {
  if (opts.token !== undefined)
    throw new Error(
      '--token is not accepted: the command line is visible to other users (ps); use --token-stdin or --token-file PATH',
    );
  if (opts.tokenStdin && opts.tokenFile) throw new Error('give the token with --token-stdin or --token-file, not both');
  if ((opts.tokenStdin || opts.tokenFile) && opts.passwordStdin)
    throw new Error('--password-stdin signs in with a password; it cannot be combined with a token');
  let text: string;
  if (opts.tokenStdin) text = await readStdin();
  else if (opts.tokenFile) {
    try {
      text = readFileSync(opts.tokenFile, 'utf8');
    } catch (err) {
      throw new Error(`cannot read the token file ${opts.tokenFile}: ${(err as Error).message}`);
    }
  } else return undefined;
  const token = text.trim();
  if (!token)
    throw new Error(opts.tokenFile ? `the token file ${opts.tokenFile} is empty` : 'no token on standard input');
  return token;
}

/**
 * Signs in once and keeps an API token (not the password, not a session) in the user's config: with a password
 * the CLI creates a token named after this machine that expires after CLI_TOKEN_DAYS and replaces the token the
 * previous login made there, then ends the session it used; --token-stdin or --token-file stores a token made in
 * the console.
 */
export async function login(opts: LoginOptions, out: Output): Promise<void> {
  const url = opts.url ?? readSettings().url;
  if (!url) throw new Error('give the master with --url http://MASTER:8080');
  let token = await givenToken(opts);
  let tokenId: string | undefined;
  if (!token) {
    const username = opts.username ?? (await ask('Username: '));
    const password = opts.passwordStdin ? await readStdin() : await ask('Password: ', true);
    const anon = new ApiClient(url);
    const session = (await anon.call<string>('POST', '/login', { body: { username, password } })).data;
    const asSession = new ApiClient(url, session);
    const created = await asSession.call<{ _id: string; token: string }>('PUT', '/tokens', {
      body: { name: `crawldeck CLI on ${os.hostname()}`.slice(0, 100), expire_days: CLI_TOKEN_DAYS, replace: true },
    });
    token = created.data.token;
    tokenId = created.data._id;
    await asSession.call('POST', '/logout').catch(() => undefined);
  }
  const me = (await new ApiClient(url, token).call<{ username: string }>('GET', '/me')).data;
  const file = writeSettings({ url, token, ...(tokenId ? { token_id: tokenId } : {}) });
  if (out.json) return printJson({ url, username: me.username, config: file });
  process.stdout.write(`Signed in to ${url} as ${me.username}; the token is kept in ${file}\n`);
}
