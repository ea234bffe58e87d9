import { describe, expect, it } from 'vitest';
import { redactCredentials, urlPasswords, withoutCredentials } from './redact.ts';

describe('credential redaction', () => {
  it('hides the password of every URL in a line and keeps the rest', () => {
    const line = '$ pip install --index-url http://ci:p%40ss@127.0.0.1:81/simple/ x; npm https://u:t0k@reg/ ok';
    expect(redactCredentials(line)).toBe(
      '$ pip install --index-url http://ci:***@127.0.0.1:81/simple/ x; npm https://u:***@reg/ ok',
    );
    expect(redactCredentials('http://127.0.0.1/simple/ and user@host')).toBe('http://127.0.0.1/simple/ and user@host');
  });

  it('hides named secrets, decoded too, and strips credentials from a URL', () => {
    const secrets = urlPasswords(['http://ci:p%40ss@127.0.0.1/simple/', '', 'not a url']);
    expect(secrets).toContain('p@ss');
    expect(redactCredentials('auth failed for p@ss', secrets)).toBe('auth failed for ***');
    expect(withoutCredentials('http://ci:p%40ss@127.0.0.1:81/simple/')).toBe('http://127.0.0.1:81/simple/');
  });
});
