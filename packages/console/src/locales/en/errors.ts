import { ERROR_CATALOGUE } from '@crawldeck/shared/core';
import type { Messages } from '../index.ts';

/**
 * English texts of the server's error codes: the catalogue's own texts, nested by the dots of the code
 * (`auth.unauthorized` → `errors:auth.unauthorized`). Generic codes show the server's reason as it is.
 */
const texts: Messages = {};
for (const [code, text] of Object.entries(ERROR_CATALOGUE)) {
  const parts = code.split('.');
  let node = texts;
  for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Messages;
  node[parts[parts.length - 1]] = text;
}

/** Names of the request fields the validation texts mention. */
texts.fields = {
  username: 'username',
  password: 'password',
  email: 'email',
  name: 'name',
  cmd: 'command',
  cron: 'cron expression',
  url: 'URL',
  events: 'events',
  role: 'role',
  description: 'description',
};

export default texts;
