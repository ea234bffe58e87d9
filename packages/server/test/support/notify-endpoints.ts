/**
 * Local stand-ins for the apps notifications go to, each checking what the app's documentation asks of a message
 * and answering as the app does: Slack (incoming webhook, `text`, answers "ok"), Discord (incoming webhook,
 * `content`, answers 204), DingTalk (robot with signing: `timestamp` and `sign` in the query, base64
 * HMAC-SHA256("timestamp\nsecret") keyed by the secret; answers `errcode` 0 or 310000), WeCom (robot, markdown
 * `content`, `errcode` 0), Feishu/Lark (bot with signing: `timestamp` and `sign` in the body, HMAC-SHA256 keyed by
 * "timestamp\nsecret" over nothing; `code` 0 or 19021), Telegram (sendMessage under /bot<token>/, `ok`), a
 * Crawldeck webhook (X-Crawldeck-Signature over the body), and an SMTP server with STARTTLS or TLS and AUTH.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export const DINGTALK_SECRET = 'SEC-ding-test-secret';
export const FEISHU_SECRET = 'feishu-test-secret';
export const TELEGRAM_TOKEN = '123456:test-token';
export const WEBHOOK_SECRET = 'hook-test-secret';
export const SMTP_USER = 'alerts';
export const SMTP_PASS = 'smtp-pass';

export interface Received {
  app: string;
  text: string;
  body: unknown;
}

type Waiter = { app: string; count: number; resolve: () => void };

/** What arrived, per app, with a way to wait for the n-th message of an app (no sleeps). */
export class Inbox {
  readonly received: Received[] = [];
  private waiters: Waiter[] = [];

  of(app: string): Received[] {
    return this.received.filter((r) => r.app === app);
  }

  push(r: Received): void {
    this.received.push(r);
    this.waiters = this.waiters.filter((w) => {
      if (this.of(w.app).length < w.count) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves once `count` messages of `app` arrived. */
  wait(app: string, count: number): Promise<void> {
    if (this.of(app).length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ app, count, resolve }));
  }
}

const hmac = (key: string, data: string) => createHmac('sha256', key).update(data).digest('base64');

function answer(res: http.ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) res.writeHead(status).end();
  else if (typeof body === 'string') res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
  else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Checks one request as its app would; answers and records it when the app takes it. */
function handle(
  inbox: Inbox,
  failNext: Set<string>,
  url: URL,
  headers: http.IncomingHttpHeaders,
  raw: string,
  res: http.ServerResponse,
) {
  const body = JSON.parse(raw) as Record<string, any>;
  const app = url.pathname.split('/')[1];
  if (failNext.delete(app)) return answer(res, 500, 'try again');
  const take = (text: string, reply: unknown, status = 200) => {
    inbox.push({ app, text, body });
    answer(res, status, reply);
  };
  switch (app) {
    case 'slack':
      return typeof body.text === 'string' ? take(body.text, 'ok') : answer(res, 400, 'invalid_payload');
    case 'discord':
      return typeof body.content === 'string' && body.content.length <= 2000
        ? take(body.content, undefined, 204)
        : answer(res, 400, { code: 50006, message: 'Cannot send an empty message' });
    case 'dingtalk': {
      const ts = url.searchParams.get('timestamp') ?? '';
      const fresh = Math.abs(Date.now() - Number(ts)) < 3_600_000;
      if (!fresh || url.searchParams.get('sign') !== hmac(DINGTALK_SECRET, `${ts}\n${DINGTALK_SECRET}`))
        return answer(res, 200, { errcode: 310000, errmsg: 'sign not match' });
      if (body.msgtype !== 'markdown' || !body.markdown?.title || !body.markdown?.text)
        return answer(res, 200, { errcode: 40035, errmsg: 'missing parameter' });
      return take(body.markdown.text, { errcode: 0, errmsg: 'ok' });
    }
    case 'wecom':
      return body.msgtype === 'markdown' && typeof body.markdown?.content === 'string'
        ? take(body.markdown.content, { errcode: 0, errmsg: 'ok' })
        : answer(res, 200, { errcode: 40008, errmsg: 'invalid message type' });
    case 'feishu': {
      const ts = String(body.timestamp ?? '');
      const fresh = Math.abs(Date.now() / 1000 - Number(ts)) < 3600;
      const expected = createHmac('sha256', `${ts}\n${FEISHU_SECRET}`).update('').digest('base64');
      if (!fresh || body.sign !== expected)
        return answer(res, 200, { code: 19021, msg: 'sign match fail or timestamp is not within one hour' });
      if (body.msg_type !== 'text' || typeof body.content?.text !== 'string')
        return answer(res, 200, { code: 9499, msg: 'Bad Request' });
      return take(body.content.text, { code: 0, msg: 'success', data: {} });
    }
    case 'telegram': {
      if (url.pathname !== `/telegram/bot${TELEGRAM_TOKEN}/sendMessage`)
        return answer(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      if (!body.chat_id || typeof body.text !== 'string')
        return answer(res, 400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
      return take(body.text, { ok: true, result: { message_id: inbox.of('telegram').length + 1 } });
    }
    case 'webhook': {
      const sig = 'sha256=' + createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex');
      if (headers['x-crawldeck-signature'] !== sig) return answer(res, 401, 'bad signature');
      return take(`${body.title}\n${body.text}\n${body.link}`, 'thanks');
    }
    default:
      return answer(res, 404, 'no such app');
  }
}

export interface ChatEndpoints {
  base: string;
  inbox: Inbox;
  /** The next message to this app is answered 500 (it is retried). */
  failNext: Set<string>;
  close(): Promise<void>;
}

export async function startChatEndpoints(): Promise<ChatEndpoints> {
  const inbox = new Inbox();
  const failNext = new Set<string>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      try {
        handle(inbox, failNext, new URL(req.url ?? '/', 'http://x'), req.headers, raw, res);
      } catch (err) {
        answer(res, 400, String(err));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    inbox,
    failNext,
    close: () => new Promise<void>((r) => server.close(() => r())).then(() => server.closeAllConnections()),
  };
}

export interface MailServer {
  port: number;
  close(): Promise<void>;
}

/** An SMTP server on loopback that takes mail only after AUTH, over STARTTLS (`secure` false) or TLS. */
export async function startMailServer(inbox: Inbox, secure: boolean): Promise<MailServer> {
  const server = new SMTPServer({
    secure,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, cb) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASS) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        inbox.push({
          app: secure ? 'smtps' : 'smtp',
          text: raw,
          body: { tls: !!session.secure, to: session.envelope.rcptTo.map((r) => r.address), user: session.user },
        });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  return { port, close: () => new Promise<void>((r) => server.close(() => r())) };
}
