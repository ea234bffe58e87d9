import { describe, expect, it } from 'vitest';
import { normalHost, sameServer, tableIdentity } from './datasource-identity.ts';

describe('the identity of a results table', () => {
  it('spells every loopback address and every case of a host one way', () => {
    for (const h of ['localhost', 'LOCALHOST', ' localhost. ', '127.0.0.1', '127.1', '127.9.9.9', '::1', '[::1]'])
      expect(normalHost(h)).toBe('localhost');
    for (const h of ['0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '2130706433', '0x7f000001', '0.0.0.0', ''])
      expect(normalHost(h)).toBe('localhost');
    expect(normalHost('DB.Example.COM.')).toBe('db.example.com');
    expect(normalHost('10.0.0.5')).toBe('10.0.0.5');
    expect(normalHost('fe80:0:0::1')).toBe('[fe80::1]');
  });

  it('keys a table by server, database, schema and table, not by how an entry names them', () => {
    const a = { type: 'postgres' as const, host: '127.0.0.1', port: 5432, database: 'crawl', schema: '' };
    const b = { ...a, host: 'LocalHost', schema: 'public' };
    expect(tableIdentity(a, 'items')).toBe(tableIdentity(b, 'items'));
    expect(tableIdentity(a, 'items')).not.toBe(tableIdentity({ ...a, schema: 'other' }, 'items'));
    expect(tableIdentity(a, 'items')).not.toBe(tableIdentity({ ...a, port: 5433 }, 'items'));
    expect(tableIdentity(a, 'items')).not.toBe(tableIdentity({ ...a, database: 'crawl2' }, 'items'));
    expect(tableIdentity(a, 'items')).not.toBe(tableIdentity(a, 'Items'));
    const my = { type: 'mysql' as const, host: '::1', port: 3306, database: 'crawl', schema: 'ignored' };
    expect(tableIdentity(my, 't')).toBe('datasource:mysql://localhost:3306/crawl//t');
  });

  it('compares servers by host and port', () => {
    expect(sameServer({ host: '127.0.0.1', port: 5432 }, { host: 'localhost', port: 5432 })).toBe(true);
    expect(sameServer({ host: '127.0.0.1', port: 5432 }, { host: '127.0.0.1', port: 5433 })).toBe(false);
    expect(sameServer({ host: 'db1', port: 5432 }, { host: 'db2', port: 5432 })).toBe(false);
  });
});
