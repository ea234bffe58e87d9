import { describe, expect, it } from 'vitest';
import { canNode, canProject, canSpider, canUseCollection, type Actor } from './index.ts';

const admin: Actor = { id: 'a', role: 'admin' };
const alice: Actor = { id: 'alice', role: 'normal' };
const bob: Actor = { id: 'bob', role: 'normal' };

describe('policies: the rules as plain predicates', () => {
  it('spider: own and admin do everything; public is readable and runnable, never changeable', () => {
    const priv = { owner_id: 'alice', is_public: 0 };
    const pub = { owner_id: 'alice', is_public: 1 };
    for (const access of ['read', 'run', 'change', 'write'] as const) {
      expect(canSpider(alice, priv, access)).toBe(true);
      expect(canSpider(admin, priv, access)).toBe(true);
      expect(canSpider(bob, priv, access)).toBe(false);
    }
    expect(canSpider(bob, pub, 'read')).toBe(true);
    expect(canSpider(bob, pub, 'run')).toBe(true);
    expect(canSpider(bob, pub, 'change')).toBe(false);
    expect(canSpider(bob, pub, 'write')).toBe(false);
  });

  it('result collection: free when unowned, otherwise its owner and administrators only', () => {
    expect(canUseCollection(bob, undefined)).toBe(true);
    expect(canUseCollection(alice, 'alice')).toBe(true);
    expect(canUseCollection(bob, 'alice')).toBe(false);
    expect(canUseCollection(admin, 'alice')).toBe(true);
  });

  it('nodes: everyone reads, administrators change', () => {
    expect(canNode(bob, 'read')).toBe(true);
    expect(canNode(bob, 'change')).toBe(false);
    expect(canNode(admin, 'change')).toBe(true);
  });

  it('projects: everyone reads, the owner or an administrator changes', () => {
    expect(canProject(bob, { owner_id: 'alice' }, 'read')).toBe(true);
    expect(canProject(bob, { owner_id: 'alice' }, 'change')).toBe(false);
    expect(canProject(alice, { owner_id: 'alice' }, 'change')).toBe(true);
    expect(canProject(admin, { owner_id: null }, 'change')).toBe(true);
  });

  it('every owner predicate denies another user’s object', () => {
    expect(canSpider(bob, { owner_id: 'alice', is_public: 0 }, 'read')).toBe(false);
    expect(canSpider(bob, { owner_id: 'alice', is_public: 1 }, 'change')).toBe(false);
    expect(canProject(bob, { owner_id: 'alice' }, 'change')).toBe(false);
    expect(canUseCollection(bob, 'alice')).toBe(false);
  });
});
