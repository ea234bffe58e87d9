/**
 * Result collections (the `col` of a spider, where its items go and against which it dedupes): a collection is
 * owned by the user whose spider first used it. A spider writes into, dedupes against or overwrites only
 * collections its owner owns; administrators' spiders may use any collection (to share one on purpose). The rule
 * is about the spider's owner, not whoever edits the spider, so it holds again when a task of the spider starts.
 * Reading results goes through the task policy: a task's results are read by whoever may read the task.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { badRequest, forbidden } from '../http/errors.ts';
import { TABLE_CLAIM_PREFIX } from '@crawldeck/shared';
import { isAdmin, type Actor } from './types.ts';
import { findActor, findCollectionOwner, insertCollectionOwner } from './policies.store.ts';

export function collectionOwner(db: Kysely<DB>, name: string): Promise<string | undefined> {
  return findCollectionOwner(db, name);
}

/** An unowned collection is free for anyone; an owned one only for its owner and administrators. */
export function canUseCollection(actor: Actor, ownerId: string | undefined): boolean {
  return ownerId === undefined || ownerId === actor.id || isAdmin(actor);
}

export const collectionRefusal = (name: string) =>
  forbidden(`forbidden: the results collection "${name}" belongs to another user; choose another collection name`);

/** Makes `name` usable by the caller's spider: claims it when unowned (the first user keeps it), 403 otherwise. */
export async function claimCollection(db: Kysely<DB>, actor: Actor, name: string): Promise<void> {
  // Claims of data-source tables share the owners' list: a collection may not pose as one.
  if (name.startsWith(TABLE_CLAIM_PREFIX))
    throw badRequest(`a results collection name may not start with "${TABLE_CLAIM_PREFIX}"`);
  if (!(await tryClaimCollection(db, actor, name))) throw collectionRefusal(name);
}

/** The same as claimCollection, answering false instead of throwing. */
export async function tryClaimCollection(db: Kysely<DB>, actor: Actor, name: string): Promise<boolean> {
  let owner = await collectionOwner(db, name);
  if (owner === undefined) {
    await insertCollectionOwner(db, name, actor.id);
    owner = await collectionOwner(db, name);
  }
  return canUseCollection(actor, owner);
}

/** The owner of a spider as an actor (id and role); undefined when that user is gone. */
export async function spiderOwner(db: Kysely<DB>, ownerId: string | null): Promise<Actor | undefined> {
  if (!ownerId) return undefined;
  return findActor(db, ownerId);
}

/** Whether the spider's owner may (still) write into the collection: checked before a task of it is created. */
export async function spiderOwnerMayWrite(db: Kysely<DB>, ownerId: string | null, name: string): Promise<boolean> {
  const owner = await spiderOwner(db, ownerId);
  return !!owner && tryClaimCollection(db, owner, name);
}
