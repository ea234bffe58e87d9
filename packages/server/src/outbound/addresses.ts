import { lookup } from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { HttpError } from '../http/errors.ts';

/**
 * Which addresses the master may connect to when it fetches something for a user (configurable-spider preview,
 * Git import and sync, webhook deliveries). Only public unicast addresses by default: loopback, private,
 * link-local (cloud metadata), unique-local, CGNAT, multicast, documentation, NAT64/6to4/Teredo (which embed an
 * IPv4 address) and every other special range are refused, IPv4-mapped IPv6 judged by the IPv4 address inside.
 * An administrator opens chosen ranges with an allow-list of CIDR ranges (environment and Settings).
 */

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Refusal of an outbound target; a 422 the console shows as is. */
export class OutboundRefused extends HttpError {
  constructor(message: string) {
    super(422, message);
  }
}

/** Parses "10.0.0.0/8, ::1/128, 192.168.1.5" (commas, spaces or new lines); throws on a bad entry. */
export function parseAllowList(text: string): Range[] {
  const out: Range[] = [];
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    try {
      out.push(entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), entry.includes(':') ? 128 : 32]);
    } catch {
      throw new Error(`"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8 or fd00::/8)`);
    }
  }
  return out;
}

/** The allow-list problem of an admin's input, or null when it parses. */
export function allowListProblem(text: string): string | null {
  try {
    parseAllowList(text);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function unwrap(ip: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const addr = ipaddr.parse(ip.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
    ? (addr as ipaddr.IPv6).toIPv4Address()
    : addr;
}

export class AddressPolicy {
  constructor(private readonly allow: Range[]) {}

  /** Why `ip` is refused ('loopback', 'private', …), or null when the master may connect to it. */
  refusal(ip: string): string | null {
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      addr = unwrap(ip);
    } catch {
      return 'invalid';
    }
    if (this.allow.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits))) return null;
    const range = addr.range();
    return range === 'unicast' ? null : range;
  }

  /** Throws OutboundRefused when `ip` is refused; `host` names the target in the message. */
  check(host: string, ip: string): void {
    const why = this.refusal(ip);
    if (why === null) return;
    const shown = host === ip ? ip : `${host} (${ip})`;
    throw new OutboundRefused(
      `refused to connect to ${shown}: ${why} addresses are not reachable from this master; an administrator can allow the range in Settings → Outbound allow-list`,
    );
  }

  /** Resolves `host` and returns the addresses the master may use (all refused: OutboundRefused). */
  async resolve(host: string): Promise<{ address: string; family: number }[]> {
    const bare = host.replace(/^\[|\]$/g, '');
    if (net.isIP(bare)) {
      this.check(bare, bare);
      return [{ address: bare, family: net.isIP(bare) }];
    }
    let found: { address: string; family: number }[];
    try {
      found = await lookup(bare, { all: true, verbatim: true });
    } catch {
      throw new OutboundRefused(`cannot resolve the host name ${bare}`);
    }
    const usable = found.filter((a) => this.refusal(a.address) === null);
    if (!usable.length) this.check(bare, found[0]?.address ?? '');
    if (!usable.length) throw new OutboundRefused(`cannot resolve the host name ${bare}`);
    return usable;
  }
}
