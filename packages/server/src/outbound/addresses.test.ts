import { describe, expect, it } from 'vitest';
import { AddressPolicy, OutboundRefused, allowListProblem, parseAllowList } from './addresses.ts';
import { publicUrl, urlCredentials } from './git.ts';

const strict = new AddressPolicy([]);

describe('outbound address policy', () => {
  it('refuses internal and special addresses, IPv4 and IPv6', () => {
    const refused: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.9.9.9', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['100.100.100.200', 'carrierGradeNat'],
      ['0.0.0.0', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::1', 'linkLocal'],
      ['fd00:ec2::254', 'uniqueLocal'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:a9fe:a9fe', 'linkLocal'],
      ['64:ff9b::7f00:1', 'rfc6052'],
      ['2002:7f00:1::', '6to4'],
      ['[::1]', 'loopback'],
    ];
    for (const [ip, why] of refused) expect(strict.refusal(ip), ip).toBe(why);
  });

  it('allows public unicast addresses', () => {
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(strict.refusal(ip), ip).toBeNull();
  });

  it('opens exactly the allow-listed ranges', () => {
    const policy = new AddressPolicy(parseAllowList('127.0.0.0/8, ::1/128\n10.20.0.0/16 192.168.1.5'));
    expect(policy.refusal('127.0.0.1')).toBeNull();
    expect(policy.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(policy.refusal('::1')).toBeNull();
    expect(policy.refusal('10.20.3.4')).toBeNull();
    expect(policy.refusal('10.21.0.1')).toBe('private');
    expect(policy.refusal('192.168.1.5')).toBeNull();
    expect(policy.refusal('192.168.1.6')).toBe('private');
    expect(policy.refusal('169.254.169.254')).toBe('linkLocal');
  });

  it('explains a bad allow-list entry', () => {
    expect(allowListProblem('')).toBeNull();
    expect(allowListProblem('10.0.0.0/8,fd00::/8')).toBeNull();
    expect(allowListProblem('10.0.0.0/33')).toMatch(/10\.0\.0\.0\/33/);
    expect(allowListProblem('example.com')).toMatch(/not an IP address or CIDR range/);
  });

  it('resolves a host name and refuses it when every address is refused', async () => {
    await expect(strict.resolve('localhost')).rejects.toThrow(OutboundRefused);
    await expect(strict.resolve('localhost')).rejects.toThrow(/refused to connect to localhost \(.*\): loopback/);
    const loopback = new AddressPolicy(parseAllowList('127.0.0.1/32'));
    expect((await loopback.resolve('localhost')).map((a) => a.address)).toEqual(['127.0.0.1']);
  });
});

describe('credentials in Git URLs', () => {
  it('splits user and password off http(s) URLs', () => {
    expect(urlCredentials('https://user:PA%40SS@host/r.git')).toEqual({
      url: 'https://host/r.git',
      username: 'user',
      password: 'PA@SS',
    });
    expect(urlCredentials('https://u:p@ss@host/r.git')).toEqual({
      url: 'https://host/r.git',
      username: 'u',
      password: 'p@ss',
    });
    expect(urlCredentials('https://token@host/r.git')).toEqual({
      url: 'https://host/r.git',
      username: 'token',
      password: '',
    });
    expect(urlCredentials('https://host/a@b.git')).toEqual({ url: 'https://host/a@b.git', username: '', password: '' });
  });

  it('keeps the ssh user but drops a password', () => {
    expect(publicUrl('ssh://git@host/r.git')).toBe('ssh://git@host/r.git');
    expect(publicUrl('ssh://git:secret@host/r.git')).toBe('ssh://git@host/r.git');
    expect(publicUrl('git@host:r.git')).toBe('git@host:r.git');
  });
});
