/**
 * The notifier: a rule that fires records one alert per channel (the history) and stores its delivery in the
 * outbox, where the notification job attempts it and retries it with backoff like a webhook delivery. The same
 * rule and subject send once within the rule's de-duplication window, whichever master sees the condition first;
 * in the rule's quiet hours the alerts are recorded as quiet and not sent.
 */
import {
  WEBHOOK_MAX_RETRIES,
  newId,
  type ChannelConfig,
  type ChannelKind,
  type ChannelSecrets,
  type NotifyLang,
} from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { decryptSecret, encryptSecret } from '../../crypto/secrets.ts';
import { outboundPolicy } from '../../outbound/policy.ts';
import { Outbox, type OutboxRow } from '../../outbox/outbox.ts';
import { parseIds } from '../schedules/schedules.store.ts';
import { PUBLIC_URL_KEY, getSetting } from '../system/settings.store.ts';
import { renderMessage, type AlertFacts, type Message } from './messages.ts';
import { sendToChannel, type ChannelTarget } from './senders.ts';
import {
  claimFiring,
  findAlert,
  findChannel,
  insertAlerts,
  updateAlert,
  type AlertRow,
  type ChannelRow,
  type RuleRow,
} from './notifications.store.ts';

/** The write-only fields of a stored channel. */
export function channelSecrets(ctx: AppContext, row: Pick<ChannelRow, 'secrets_enc'>): ChannelSecrets {
  if (!row.secrets_enc) return {};
  return JSON.parse(decryptSecret(ctx.config.dataDir, row.secrets_enc)) as ChannelSecrets;
}

export function sealSecrets(ctx: AppContext, secrets: ChannelSecrets): string {
  const kept = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v));
  return Object.keys(kept).length ? encryptSecret(ctx.config.dataDir, JSON.stringify(kept)) : '';
}

export function channelTarget(ctx: AppContext, row: ChannelRow): ChannelTarget {
  return {
    kind: row.kind as ChannelKind,
    config: JSON.parse(row.config) as ChannelConfig,
    secrets: channelSecrets(ctx, row),
  };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether `at` (the master's local time) falls in the rule's quiet hours; a span may cross midnight. */
export function inQuietHours(rule: Pick<RuleRow, 'quiet_start' | 'quiet_end'>, at: Date): boolean {
  if (!rule.quiet_start || !rule.quiet_end) return false;
  const now = at.getHours() * 60 + at.getMinutes();
  const [start, end] = [minutesOf(rule.quiet_start), minutesOf(rule.quiet_end)];
  return start < end ? now >= start && now < end : now >= start || now < end;
}

export class Notifier {
  private readonly outbox: Outbox;
  private readonly controllers = new Set<AbortController>();
  private closed = false;

  constructor(private ctx: AppContext) {
    const { webhookBackoffMs, webhookTimeoutMs } = ctx.config;
    this.outbox = new Outbox(ctx, 'notification', webhookBackoffMs, webhookTimeoutMs + 30_000, (row) =>
      this.attempt(row),
    );
  }

  private get db() {
    return this.ctx.store.db;
  }

  /** Takes up the deliveries waiting in the store (e.g. retries from before a restart). */
  start(): void {
    this.outbox.kick();
  }

  /**
   * Fires a rule for a subject (`spider:<id>`, `node:<id>`): records an alert per enabled channel of the rule and
   * queues their delivery, unless the subject fired within the rule's window. Answers whether it fired.
   */
  async fire(rule: RuleRow, subject: string, facts: AlertFacts): Promise<boolean> {
    const now = Date.now();
    const windowMs = rule.dedupe_minutes * 60_000;
    if (windowMs > 0 && !(await claimFiring(this.db, rule.id, subject, now, windowMs))) return false;
    const quiet = inQuietHours(rule, new Date(now));
    const publicUrl = await getSetting(this.db, PUBLIC_URL_KEY, '');
    const channels: ChannelRow[] = [];
    for (const id of parseIds(rule.channel_ids)) {
      const c = await findChannel(this.db, id);
      if (c?.enabled) channels.push(c);
    }
    const firingId = newId(now);
    const rows: AlertRow[] = channels.map((c) => {
      const m = renderMessage(facts, c.lang as NotifyLang, publicUrl);
      return {
        id: newId(now),
        firing_id: firingId,
        rule_id: rule.id,
        rule_name: rule.name,
        event: rule.event,
        subject,
        channel_id: c.id,
        channel_name: c.name,
        channel_kind: c.kind,
        title: m.title,
        text: m.text,
        link: m.link,
        status: quiet ? 'quiet' : 'pending',
        attempts: 0,
        answer_status: null,
        answer: '',
        error: quiet ? 'quiet hours: not sent' : '',
        create_ts: now,
        update_ts: now,
      };
    });
    await insertAlerts(this.db, rows);
    if (!quiet) await this.outbox.add(rows.map((r) => ({ id: r.id, target_id: r.id, event: r.event, body: '' })));
    return true;
  }

  /** Sends the test message to a channel now (one attempt, not kept in the history) and answers the outcome. */
  async test(row: ChannelRow, facts: AlertFacts) {
    const publicUrl = await getSetting(this.db, PUBLIC_URL_KEY, '');
    return this.send(channelTarget(this.ctx, row), renderMessage(facts, row.lang as NotifyLang, publicUrl));
  }

  private async send(target: ChannelTarget, m: Message) {
    const policy = await outboundPolicy(this.db, this.ctx.config.outboundAllow);
    const controller = new AbortController();
    this.controllers.add(controller);
    try {
      return await sendToChannel(target, m, policy, this.ctx.config.webhookTimeoutMs, controller.signal);
    } finally {
      this.controllers.delete(controller);
    }
  }

  /** One attempt of a stored alert; the alert row keeps the latest answer. */
  private async attempt(row: OutboxRow): Promise<{ ok: boolean; aborted: boolean; gone?: boolean }> {
    if (this.closed) return { ok: false, aborted: true };
    const alert = await findAlert(this.db, row.target_id);
    if (!alert) return { ok: false, aborted: false, gone: true };
    const channel = await findChannel(this.db, alert.channel_id);
    if (!channel) {
      await updateAlert(this.db, alert.id, {
        status: 'failed',
        error: 'the channel was deleted',
        update_ts: Date.now(),
      });
      return { ok: false, aborted: false, gone: true };
    }
    const r = await this.send(channelTarget(this.ctx, channel), alert);
    const aborted = !r.ok && this.closed;
    if (aborted) return { ok: false, aborted };
    const lastTry = row.attempt > WEBHOOK_MAX_RETRIES;
    await updateAlert(this.db, alert.id, {
      status: r.ok ? 'delivered' : lastTry ? 'failed' : 'pending',
      attempts: row.attempt,
      answer_status: r.status,
      answer: r.answer.slice(0, 4000),
      error: r.error,
      update_ts: Date.now(),
    });
    return { ok: r.ok, aborted: false };
  }

  async close(): Promise<void> {
    this.closed = true;
    const closing = this.outbox.close();
    for (const c of this.controllers) c.abort(new Error('master shutting down'));
    await closing;
  }
}
