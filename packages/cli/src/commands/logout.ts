import { ApiClient, ApiError } from '../api-client.ts';
import { configFile, storedSettings, writeSettings } from '../user-config.ts';
import { printJson, type Output } from '../output.ts';

/** What logout did with the token: revoked on the master, already invalid there, or one made in the console. */
type Revoked = 'revoked' | 'already-invalid' | 'kept-console-token';

async function revoke(url: string, token: string, tokenId: string | undefined): Promise<Revoked> {
  // A token made in the console is the user's to revoke there; logout only forgets it on this machine. So is one
  // kept by an older CLI, which did not note the id of the token it made.
  if (!tokenId) return 'kept-console-token';
  try {
    await new ApiClient(url, token).call('DELETE', `/tokens/${tokenId}`);
    return 'revoked';
  } catch (err) {
    // Expired or revoked already (401), or gone (404): nothing is left to revoke.
    if (err instanceof ApiError && (err.status === 401 || err.status === 404)) return 'already-invalid';
    throw new Error(`${(err as Error).message}; the token is kept, run \`crawldeck logout\` again to revoke it`);
  }
}

const MESSAGES: Record<Revoked, string> = {
  revoked: 'the CLI token is revoked on the master',
  'already-invalid': 'the CLI token was no longer valid on the master',
  'kept-console-token':
    'the token was made in the console (or by a login of an older CLI, which did not note its id) and stays valid there until you revoke it under Settings → Tokens',
};

/**
 * Signs out: revokes the token `crawldeck login` made on the master, then removes it from the user's config (the
 * master's address stays for the next login). When the master cannot be reached the token is kept, so the user
 * can try again rather than leave a valid token behind.
 */
export async function logout(out: Output): Promise<void> {
  const stored = storedSettings();
  if (!stored.url || !stored.token) {
    if (out.json) return printJson({ signed_in: false });
    process.stdout.write('Not signed in; nothing to do\n');
    return;
  }
  const outcome = await revoke(stored.url, stored.token, stored.token_id);
  writeSettings({ url: stored.url });
  if (out.json) return printJson({ url: stored.url, token: outcome, config: configFile() });
  process.stdout.write(`Signed out of ${stored.url}: ${MESSAGES[outcome]}; ${configFile()} holds no token now\n`);
}
