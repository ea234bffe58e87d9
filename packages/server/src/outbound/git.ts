import net from 'node:net';
import type { AddressPolicy } from './addresses.ts';

/** How one git process reaches a remote whose host was resolved and checked by the master. */
export interface PinnedRemote {
  /** `-c` settings for git: the HTTP connection pinned to the checked address, redirects refused. */
  config: string[];
  /** Options for ssh: the connection goes to the checked address, no proxy commands. */
  sshOptions: string[];
}

function hostAndPort(url: string): { scheme: 'http' | 'https' | 'ssh'; host: string; port: number } {
  const scp = /^[^@/:]+@([^:/]+):/.exec(url);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return { scheme: 'ssh', host: scp[1], port: 22 };
  const u = new URL(url);
  const scheme = u.protocol.slice(0, -1) as 'http' | 'https' | 'ssh';
  const port = u.port ? Number(u.port) : scheme === 'https' ? 443 : scheme === 'http' ? 80 : 22;
  return { scheme, host: u.hostname.replace(/^\[|\]$/g, ''), port };
}

/**
 * Resolves the remote's host once, checks it against the outbound policy (OutboundRefused when refused) and
 * pins git to that address: curl's resolve list for http(s) (`http.curloptResolve`, git 2.37+) and ssh's HostName
 * for ssh, so a DNS answer that changes later cannot send git elsewhere. http.followRedirects=false: a remote
 * cannot send git on to another host (a redirect answer fails the command).
 */
export async function pinGitRemote(url: string, policy: AddressPolicy): Promise<PinnedRemote> {
  const { scheme, host, port } = hostAndPort(url);
  const [{ address }] = await policy.resolve(host);
  const config = ['http.followRedirects=false'];
  if (scheme === 'ssh')
    return { config, sshOptions: ['-o', `HostName=${address}`, '-o', 'ProxyCommand=none', '-o', 'ProxyJump=none'] };
  if (net.isIP(host)) return { config, sshOptions: [] };
  const pinnedAddress = address.includes(':') ? `[${address}]` : address;
  config.push(`http.curloptResolve=${host}:${port}:${pinnedAddress}`);
  return { config, sshOptions: [] };
}

/** The URL without secrets, for display, storage and git's own config: http(s) lose user:password, ssh its password. */
export function publicUrl(url: string): string {
  return url.replace(/^(https?):\/\/[^/?#]*@/i, '$1://').replace(/^(ssh:\/\/[^@/:]*):[^@/]*@/i, '$1@');
}

const decoded = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** Credentials written into an http(s) URL (`https://user:pass@host/r.git`) and the URL without them. */
export function urlCredentials(url: string): { url: string; username: string; password: string } {
  const u = url.trim();
  const m = /^(https?):\/\/([^/?#]*)@/i.exec(u);
  if (!m) return { url: publicUrl(u), username: '', password: '' };
  const [user, ...pass] = m[2].split(':');
  return { url: publicUrl(u), username: decoded(user ?? ''), password: decoded(pass.join(':')) };
}
