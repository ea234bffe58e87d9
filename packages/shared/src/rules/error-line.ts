/**
 * Spec §5: a log line counts as an error when it contains error, exception or traceback (plurals allowed,
 * case-insensitive), delimited by space, colon, comma, period or the line edge. `log_count/ERROR` is excluded.
 */
const ERROR_WORD = /(?:^|[\s:,.])(?:errors?|exceptions?|tracebacks?)(?=$|[\s:,.])/i;
const WHITELIST = /log_count\/ERROR/gi;

export function isErrorLine(line: string): boolean {
  return ERROR_WORD.test(line.replace(WHITELIST, ' '));
}
