/** Cron display helpers: the shared rule (same as the server), human text via cronstrue in zh and en. */
import cronstrue from 'cronstrue/i18n';
import { cronWithoutSeconds, nextCronRuns, validateCron } from '@crawldeck/shared';

export { nextCronRuns, validateCron };

/**
 * The cron as the schedule list shows it: a seconds field of 0 only adds noise and is left out, any other seconds
 * field (every 10 seconds, at second 30) is part of the meaning and the whole expression is shown.
 */
export function cronForList(expr: string): string {
  const fields = expr.trim().split(/\s+/);
  return fields.length === 6 && fields[0] !== '0' ? fields.join(' ') : cronWithoutSeconds(expr);
}

/** Human-readable description of a 6-field cron in the console language ('' when invalid). */
export function describeCron(expr: string, lang: string): string {
  if (validateCron(expr)) return '';
  try {
    return cronstrue.toString(expr.trim(), {
      locale: lang.startsWith('zh') ? 'zh_CN' : 'en',
      use24HourTimeFormat: true,
      throwExceptionOnParseError: true,
    });
  } catch {
    return '';
  }
}

/** Formats an instant in the schedule's zone, e.g. 2026-11-23 02:30:00. */
export function formatInZone(ts: string | Date | null | undefined, timezone?: string): string {
  if (!ts) return '-';
  const d = typeof ts === 'string' ? new Date(ts) : ts;
  try {
    const parts = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone || undefined,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(d);
    const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
    return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
  } catch {
    return d.toISOString();
  }
}
