import type { FastifyInstance, FastifyRequest } from 'fastify';
import pretty from 'pino-pretty';
import { NODE_KEY_HEADER } from '@crawldeck/shared';
import type { MasterConfig } from '../config.ts';

const REDACTED = '[redacted]';
// `?token=` (task log stream) and any other credential-like query parameter.
const SECRET_QUERY = /([?&](?:token|access_token|key|password)=)[^&#]*/gi;

/** The request URL as logged: credentials in the query string are replaced. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, `$1${REDACTED}`);
}

/** What a request log line shows: never a header (no Authorization, no node key), never a query-string token. */
function requestSerializer(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** Options of the master's pino logger. */
export function loggerOptions(config: MasterConfig) {
  return {
    level: config.logLevel,
    serializers: { req: requestSerializer },
    // Whatever else gets logged with headers attached, the credentials in them are not written.
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        `req.headers["${NODE_KEY_HEADER}"]`,
        `headers["${NODE_KEY_HEADER}"]`,
        'req.headers.cookie',
        'headers.cookie',
      ],
      censor: REDACTED,
    },
    ...(config.logPretty
      ? { stream: prettyStream(config.logStream) }
      : config.logStream
        ? { stream: config.logStream }
        : {}),
  };
}

/** Readable log lines on a terminal: time, level and message in colour, the request fields after them. */
function prettyStream(destination?: NodeJS.WritableStream) {
  return pretty({
    colorize: !destination,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    ...(destination ? { destination } : {}),
  });
}

/** A request slower than this is logged at info even when requests are not. */
const SLOW_REQUEST_MS = 1000;

/**
 * One log entry per request, once its reply is sent (`request completed`, with the status and the time taken): at
 * info when the operator asked for an access log (CRAWLDECK_LOG_REQUESTS) or the request was slow, at debug
 * otherwise. Nodes and consoles poll and stream all day; at info by default their requests would be nearly the
 * whole log and bury what an operator looks for. Failures are logged where they happen, with their cause.
 */
export function registerRequestLog(app: FastifyInstance, config: MasterConfig): void {
  app.addHook('onResponse', async (req, reply) => {
    const ms = reply.elapsedTime;
    const level = config.logRequests || ms > SLOW_REQUEST_MS ? 'info' : 'debug';
    req.log[level](
      { req, res: { statusCode: reply.statusCode }, responseTime: ms },
      ms > SLOW_REQUEST_MS && !config.logRequests ? 'slow request completed' : 'request completed',
    );
  });
}
