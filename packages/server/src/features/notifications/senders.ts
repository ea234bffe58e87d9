/**
 * How a message reaches each kind of channel, in the form each app documents for its incoming webhooks and bots:
 * Slack and Discord take JSON with the text; DingTalk and WeCom robots take a markdown message and answer
 * `errcode` 0 on success, DingTalk signing the URL with HMAC-SHA256 of "timestamp\nsecret"; a Feishu/Lark bot takes
 * a text message with `timestamp` and `sign` (HMAC-SHA256 keyed by "timestamp\nsecret") in the body and answers
 * `code` 0; Telegram's Bot API takes sendMessage and answers `ok: true`; the generic webhook gets Crawldeck's JSON
 * signed like every Crawldeck webhook; e-mail goes out over SMTP. Every connection goes through the outbound
 * address policy.
 */
import { createHmac } from 'node:crypto';
import nodemailer from 'nodemailer';
import {
  TELEGRAM_API_BASE,
  VERSION,
  WEBHOOK_SIGNATURE_HEADER,
  type ChannelAttemptResult,
  type ChannelConfig,
  type ChannelKind,
  type ChannelSecrets,
} from '@crawldeck/shared';
import type { AddressPolicy } from '../../outbound/addresses.ts';
import { fetchLimited, guardedAgent } from '../../outbound/http.ts';
import { sign as webhookSign } from '../webhooks/webhooks.service.ts';
import type { Message } from './messages.ts';

export interface ChannelTarget {
  kind: ChannelKind;
  config: ChannelConfig;
  secrets: ChannelSecrets;
}

const ANSWER_LIMIT = 4000;

interface HttpCall {
  url: string;
  body: string;
  headers?: Record<string, string>;
  /** Whether the app's answer says the message was taken (beyond a 2xx status). */
  accepted: (status: number, answer: string) => boolean;
}

const is2xx = (status: number) => status >= 200 && status < 300;
const jsonField = (answer: string, field: string): unknown => {
  try {
    return (JSON.parse(answer) as Record<string, unknown>)[field];
  } catch {
    return undefined;
  }
};
const plain = (m: Message) => [m.title, m.text, m.link].filter(Boolean).join('\n');

/** The DingTalk signature of a millisecond timestamp: base64 HMAC-SHA256 of "timestamp\nsecret" keyed by the secret. */
export function dingtalkSign(timestamp: number, secret: string): string {
  return createHmac('sha256', secret).update(`${timestamp}\n${secret}`).digest('base64');
}

/** The Feishu/Lark signature of a timestamp in seconds: base64 HMAC-SHA256 of nothing keyed by "timestamp\nsecret". */
export function feishuSign(timestamp: number, secret: string): string {
  return createHmac('sha256', `${timestamp}\n${secret}`).update('').digest('base64');
}

function httpCall(t: ChannelTarget, m: Message, now: number): HttpCall {
  const url = t.secrets.url ?? '';
  switch (t.kind) {
    case 'slack':
      return {
        url,
        body: JSON.stringify({ text: `*${m.title}*\n${m.text}${m.link ? `\n<${m.link}>` : ''}` }),
        accepted: is2xx,
      };
    case 'discord':
      return { url, body: JSON.stringify({ content: plain(m).slice(0, 2000) }), accepted: is2xx };
    case 'dingtalk': {
      const u = new URL(url);
      if (t.secrets.secret) {
        u.searchParams.set('timestamp', String(now));
        u.searchParams.set('sign', dingtalkSign(now, t.secrets.secret));
      }
      const text = `#### ${m.title}\n\n${m.text.split('\n').join('  \n')}${m.link ? `\n\n[${m.link}](${m.link})` : ''}`;
      return {
        url: u.toString(),
        body: JSON.stringify({ msgtype: 'markdown', markdown: { title: m.title, text } }),
        accepted: (s, a) => is2xx(s) && jsonField(a, 'errcode') === 0,
      };
    }
    case 'wecom': {
      const content = `**${m.title}**\n${m.text}${m.link ? `\n[${m.link}](${m.link})` : ''}`;
      return {
        url,
        body: JSON.stringify({ msgtype: 'markdown', markdown: { content } }),
        accepted: (s, a) => is2xx(s) && jsonField(a, 'errcode') === 0,
      };
    }
    case 'feishu': {
      const ts = Math.floor(now / 1000);
      const signed = t.secrets.secret ? { timestamp: String(ts), sign: feishuSign(ts, t.secrets.secret) } : {};
      return {
        url,
        body: JSON.stringify({ ...signed, msg_type: 'text', content: { text: plain(m) } }),
        accepted: (s, a) => is2xx(s) && (jsonField(a, 'code') ?? jsonField(a, 'StatusCode')) === 0,
      };
    }
    case 'telegram': {
      const base = (t.config.api_base || TELEGRAM_API_BASE).replace(/\/+$/, '');
      return {
        url: `${base}/bot${t.secrets.token ?? ''}/sendMessage`,
        body: JSON.stringify({ chat_id: t.config.chat_id, text: plain(m), disable_web_page_preview: true }),
        accepted: (s, a) => is2xx(s) && jsonField(a, 'ok') === true,
      };
    }
    case 'webhook': {
      const body = JSON.stringify({ title: m.title, text: m.text, link: m.link });
      const headers: Record<string, string> = {};
      if (t.secrets.secret) headers[WEBHOOK_SIGNATURE_HEADER] = webhookSign(t.secrets.secret, body);
      return { url: t.config.url ?? '', body, headers, accepted: is2xx };
    }
    case 'email':
      throw new Error('e-mail is not sent over HTTP');
  }
}

/** Why an attempt failed, with the cause undici or a socket gives. */
function reasonOf(err: unknown, signal: AbortSignal): string {
  const reason = signal.aborted ? signal.reason : err;
  const cause = (reason as { cause?: { message?: string } })?.cause?.message;
  return String((reason as Error)?.message ?? reason) + (cause ? `: ${cause}` : '');
}

async function sendHttp(t: ChannelTarget, m: Message, policy: AddressPolicy, signal: AbortSignal) {
  const call = httpCall(t, m, Date.now());
  const agent = guardedAgent(policy);
  try {
    const res = await fetchLimited(call.url, {
      dispatcher: agent,
      maxBytes: ANSWER_LIMIT,
      overflow: 'truncate',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': `Crawldeck/${VERSION}`, ...call.headers },
      body: call.body,
      signal,
      redirect: 'manual',
    });
    const answer = res.body.toString('utf8');
    const ok = call.accepted(res.status, answer);
    return {
      ok,
      status: res.status,
      answer,
      error: ok ? '' : `the endpoint did not take the message (HTTP ${res.status})`,
    };
  } finally {
    void agent.destroy().catch(() => undefined);
  }
}

async function sendEmail(t: ChannelTarget, m: Message, policy: AddressPolicy, timeoutMs: number) {
  const c = t.config;
  const host = c.host ?? '';
  // Connect to an address the policy allows; TLS still checks the certificate against the host name.
  const [{ address }] = await policy.resolve(host);
  const transport = nodemailer.createTransport({
    host: address,
    port: c.port,
    secure: c.security === 'tls',
    requireTLS: c.security === 'starttls',
    ignoreTLS: c.security === 'none',
    auth: c.username ? { user: c.username, pass: t.secrets.password ?? '' } : undefined,
    tls: { servername: host, rejectUnauthorized: !c.skip_verify },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  try {
    const info = await transport.sendMail({
      from: c.from,
      to: c.to,
      subject: m.title,
      text: m.text + (m.link ? `\n\n${m.link}` : ''),
    });
    const answer = String(info.response ?? '');
    return { ok: true, status: Number(answer.slice(0, 3)) || null, answer, error: '' };
  } finally {
    transport.close();
  }
}

/** One attempt to deliver a message to a channel, with a timeout; never throws. */
export async function sendToChannel(
  t: ChannelTarget,
  m: Message,
  policy: AddressPolicy,
  timeoutMs: number,
  outer?: AbortSignal,
): Promise<ChannelAttemptResult> {
  const started = Date.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const onOuter = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuter);
  try {
    const r =
      t.kind === 'email' ? await sendEmail(t, m, policy, timeoutMs) : await sendHttp(t, m, policy, controller.signal);
    return { ...r, duration_ms: Date.now() - started };
  } catch (err) {
    const smtp = err as { responseCode?: number; response?: string };
    return {
      ok: false,
      status: typeof smtp.responseCode === 'number' ? smtp.responseCode : null,
      answer: typeof smtp.response === 'string' ? smtp.response.slice(0, ANSWER_LIMIT) : '',
      error: reasonOf(err, controller.signal).slice(0, 1000),
      duration_ms: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}
