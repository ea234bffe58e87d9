import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { inTransaction, pageWithTotal } from '../../store/query-helpers.ts';

/** Notification channels, rules, the claims that de-duplicate firings, and the alert history. */
export type ChannelRow = Selectable<DB['notify_channels']>;
export type RuleRow = Selectable<DB['notify_rules']>;
export type AlertRow = Selectable<DB['notify_alerts']>;
type Page = { limit: number; offset: number };

// ---- channels ----

export function listChannels(db: Kysely<DB>): Promise<ChannelRow[]> {
  return db.selectFrom('notify_channels').selectAll().orderBy('create_ts', 'desc').orderBy('id').execute();
}

export function findChannel(db: Kysely<DB>, id: string): Promise<ChannelRow | undefined> {
  return db.selectFrom('notify_channels').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertChannel(db: Kysely<DB>, row: ChannelRow): Promise<void> {
  await db.insertInto('notify_channels').values(row).execute();
}

export async function updateChannel(db: Kysely<DB>, id: string, patch: Partial<ChannelRow>): Promise<void> {
  await db.updateTable('notify_channels').set(patch).where('id', '=', id).execute();
}

/** Deletes a channel and takes it out of the rules that send to it (their other channels stay). */
export async function deleteChannel(db: Kysely<DB>, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const rules = await trx.selectFrom('notify_rules').select(['id', 'channel_ids']).execute();
    for (const r of rules) {
      const ids = JSON.parse(r.channel_ids) as string[];
      if (ids.includes(id))
        await trx
          .updateTable('notify_rules')
          .set({ channel_ids: JSON.stringify(ids.filter((c) => c !== id)) })
          .where('id', '=', r.id)
          .execute();
    }
    await trx.deleteFrom('notify_channels').where('id', '=', id).execute();
  });
}

/** The existing ids among `ids`. */
export async function existingChannelIds(db: Kysely<DB>, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await db.selectFrom('notify_channels').select('id').where('id', 'in', ids).execute();
  return rows.map((r) => r.id);
}

// ---- rules ----

export function listRules(db: Kysely<DB>): Promise<RuleRow[]> {
  return db.selectFrom('notify_rules').selectAll().orderBy('create_ts', 'desc').orderBy('id').execute();
}

export function listEnabledRules(db: Kysely<DB>, events: string[]): Promise<RuleRow[]> {
  return db.selectFrom('notify_rules').selectAll().where('enabled', '=', 1).where('event', 'in', events).execute();
}

export function findRule(db: Kysely<DB>, id: string): Promise<RuleRow | undefined> {
  return db.selectFrom('notify_rules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertRule(db: Kysely<DB>, row: RuleRow): Promise<void> {
  await db.insertInto('notify_rules').values(row).execute();
}

export async function updateRule(db: Kysely<DB>, id: string, patch: Partial<RuleRow>): Promise<void> {
  await db.updateTable('notify_rules').set(patch).where('id', '=', id).execute();
}

export async function deleteRule(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('notify_claims').where('rule_id', '=', id).execute();
  await clearRuleNodeStates(db, id);
  await db.deleteFrom('notify_rules').where('id', '=', id).execute();
}

// ---- claims: a rule fires once per subject within its window, on whichever master gets there first ----

/**
 * Claims the firing of a rule for a subject at `now`: true for exactly one caller when the subject has no claim
 * or its last firing is at least `windowMs` old (`windowMs` null: one claim ever).
 */
export async function claimFiring(
  db: Kysely<DB>,
  ruleId: string,
  subject: string,
  now: number,
  windowMs: number | null,
): Promise<boolean> {
  const ins = await db
    .insertInto('notify_claims')
    .values({ rule_id: ruleId, subject, fire_ts: now })
    .onConflict((oc) => oc.columns(['rule_id', 'subject']).doNothing())
    .executeTakeFirst();
  if (Number(ins.numInsertedOrUpdatedRows ?? 0) > 0) return true;
  if (windowMs === null) return false;
  const upd = await db
    .updateTable('notify_claims')
    .set({ fire_ts: now })
    .where('rule_id', '=', ruleId)
    .where('subject', '=', subject)
    .where('fire_ts', '<=', now - windowMs)
    .executeTakeFirst();
  return Number(upd.numUpdatedRows) > 0;
}

/** Ends the one-claim episodes of a subject for every rule (what they were about is over). */
export async function releaseClaims(db: Kysely<DB>, subject: string): Promise<void> {
  await db.deleteFrom('notify_claims').where('subject', '=', subject).execute();
}

// ---- node resource episodes: usage above a rule's threshold since a time, fired or not ----

export type NodeStateRow = Selectable<DB['notify_node_states']>;

/** The stored episodes of these rules on these nodes. */
export async function nodeStates(db: Kysely<DB>, ruleIds: string[], nodeIds: string[]): Promise<NodeStateRow[]> {
  if (!ruleIds.length || !nodeIds.length) return [];
  return db
    .selectFrom('notify_node_states')
    .selectAll()
    .where('rule_id', 'in', ruleIds)
    .where('node_id', 'in', nodeIds)
    .execute();
}

/** Starts an episode at `now` unless one is stored already (another master's, or one from before a restart). */
export async function beginNodeState(db: Kysely<DB>, ruleId: string, nodeId: string, now: number): Promise<void> {
  await db
    .insertInto('notify_node_states')
    .values({ rule_id: ruleId, node_id: nodeId, above_since: now, fired: 0 })
    .onConflict((oc) => oc.columns(['rule_id', 'node_id']).doNothing())
    .execute();
}

/** Marks an episode fired: true for exactly one caller, whichever master gets there first. */
export async function claimNodeState(db: Kysely<DB>, ruleId: string, nodeId: string, aboveSince: number) {
  const r = await db
    .updateTable('notify_node_states')
    .set({ fired: 1 })
    .where('rule_id', '=', ruleId)
    .where('node_id', '=', nodeId)
    .where('above_since', '=', aboveSince)
    .where('fired', '=', 0)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Ends an episode: the usage went back to the threshold or below. */
export async function endNodeState(db: Kysely<DB>, ruleId: string, nodeId: string): Promise<void> {
  await db.deleteFrom('notify_node_states').where('rule_id', '=', ruleId).where('node_id', '=', nodeId).execute();
}

/** Ends every episode of a rule (deleted, or its condition changed). */
export async function clearRuleNodeStates(db: Kysely<DB>, ruleId: string): Promise<void> {
  await db.deleteFrom('notify_node_states').where('rule_id', '=', ruleId).execute();
}

// ---- what a rule looks at ----

/** A task with its spider's name and project, its node's name and its error-line and result counts. */
export function taskForRules(db: Kysely<DB>, taskId: string) {
  return db
    .selectFrom('tasks')
    .leftJoin('spiders', 'spiders.id', 'tasks.spider_id')
    .leftJoin('nodes', 'nodes.id', 'tasks.node_id')
    .select([
      'tasks.id',
      'tasks.status',
      'tasks.error',
      'tasks.spider_id',
      'tasks.error_lines',
      'tasks.result_count',
      'tasks.create_ts',
      'tasks.start_ts',
      'tasks.finish_ts',
      'spiders.name as spider_name',
      'spiders.project_id',
      'nodes.name as node_name',
    ])
    .where('tasks.id', '=', taskId)
    .executeTakeFirst();
}

/** Run times (ms) of the spider's latest ten finished runs created before `beforeTs`, other than `taskId`. */
export async function earlierRuntimes(db: Kysely<DB>, spiderId: string, taskId: string, beforeTs: number) {
  const rows = await db
    .selectFrom('tasks')
    .select(['start_ts', 'finish_ts'])
    .where('spider_id', '=', spiderId)
    .where('status', '=', 'finished')
    .where('id', '!=', taskId)
    .where('create_ts', '<=', beforeTs)
    .orderBy('create_ts', 'desc')
    .limit(10)
    .execute();
  return rows
    .filter((r) => r.start_ts != null && r.finish_ts != null)
    .map((r) => Number(r.finish_ts) - Number(r.start_ts));
}

/** A schedule with its spider's name and project. */
export function scheduleForRules(db: Kysely<DB>, scheduleId: string) {
  return db
    .selectFrom('schedules')
    .leftJoin('spiders', 'spiders.id', 'schedules.spider_id')
    .select([
      'schedules.id',
      'schedules.name',
      'schedules.spider_id',
      'spiders.name as spider_name',
      'spiders.project_id',
    ])
    .where('schedules.id', '=', scheduleId)
    .executeTakeFirst();
}

/** The tags of a project. */
export async function projectTags(db: Kysely<DB>, projectId: string): Promise<string[]> {
  const rows = await db.selectFrom('project_tags').select('tag').where('project_id', '=', projectId).execute();
  return rows.map((r) => r.tag);
}

export function nodeForRules(db: Kysely<DB>, nodeId: string) {
  return db.selectFrom('nodes').select(['id', 'name', 'ip']).where('id', '=', nodeId).executeTakeFirst();
}

// ---- alerts ----

export async function insertAlerts(db: Kysely<DB>, rows: AlertRow[]): Promise<void> {
  if (rows.length) await db.insertInto('notify_alerts').values(rows).execute();
}

export function findAlert(db: Kysely<DB>, id: string): Promise<AlertRow | undefined> {
  return db.selectFrom('notify_alerts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateAlert(db: Kysely<DB>, id: string, patch: Partial<AlertRow>): Promise<void> {
  await db.updateTable('notify_alerts').set(patch).where('id', '=', id).execute();
}

/** One page of the alert history, newest first, optionally of one rule or one status. */
export function listAlertsPage(db: Kysely<DB>, filter: { rule_id?: string; status?: string }, page: Page) {
  let query = db.selectFrom('notify_alerts').selectAll().orderBy('create_ts', 'desc').orderBy('id', 'desc');
  if (filter.rule_id) query = query.where('rule_id', '=', filter.rule_id);
  if (filter.status) query = query.where('status', '=', filter.status as AlertRow['status']);
  return pageWithTotal(query, page);
}

/** Alerts recorded after `sinceTs` by any master, oldest first (at most `limit`): the firing counters. */
export function alertsSince(db: Kysely<DB>, sinceTs: number, limit: number) {
  return db
    .selectFrom('notify_alerts')
    .select(['create_ts', 'event', 'firing_id'])
    .where('create_ts', '>', sinceTs)
    .orderBy('create_ts')
    .limit(limit)
    .execute();
}
