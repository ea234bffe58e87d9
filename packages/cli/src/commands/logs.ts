import { createParser } from 'eventsource-parser';
import { FINAL_TASK_STATUSES, LOG_PAGE_SIZE, type TaskInfo } from '@crawldeck/shared';
import type { ApiClient } from '../api-client.ts';
import { printJson, type Output } from '../output.ts';

interface LogLine {
  line_no: number;
  msg: string;
  is_error: boolean;
}

function printLine(out: Output, line: LogLine): void {
  if (out.json) process.stdout.write(JSON.stringify(line) + '\n');
  else process.stdout.write(out.tty && line.is_error ? `\x1b[31m${line.msg}\x1b[0m\n` : `${line.msg}\n`);
}

/** The whole stored log, page by page. */
async function printStoredLog(api: ApiClient, taskId: string, out: Output): Promise<void> {
  for (let page = 1; ; page++) {
    const { data, total } = await api.call<LogLine[]>('GET', `/tasks/${taskId}/log`, {
      query: { page_num: page, page_size: LOG_PAGE_SIZE },
    });
    for (const l of data) printLine(out, l);
    if (data.length < LOG_PAGE_SIZE || page * LOG_PAGE_SIZE >= (total ?? 0)) return;
  }
}

/**
 * Follows a task's log through the master's live stream (the one the console's log view uses): the stored lines
 * first, then each new line as it is ingested, until the task reaches a final status. Returns that task.
 */
export async function followLog(api: ApiClient, taskId: string, out: Output): Promise<TaskInfo> {
  const abort = new AbortController();
  const res = await api.stream(`/tasks/${taskId}/stream`, { from: 0 }, abort.signal);
  let final: TaskInfo | undefined;
  const parser = createParser({
    onEvent(ev) {
      if (ev.event === 'log') for (const l of JSON.parse(ev.data) as LogLine[]) printLine(out, l);
      if (ev.event === 'status') {
        const task = JSON.parse(ev.data) as TaskInfo;
        if (FINAL_TASK_STATUSES.includes(task.status)) final = task;
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  try {
    while (!final) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    abort.abort();
  }
  // The stream closed early (master restarted): the stored task tells how it ended.
  return final ?? (await api.call<TaskInfo>('GET', `/tasks/${taskId}`)).data;
}

export function statusLine(task: TaskInfo): string {
  const tail = task.error ? `: ${task.error}` : '';
  return `Task ${task._id} ${task.status} (${task.result_count} results, ${task.error_log_count} error lines)${tail}\n`;
}

export async function logs(api: ApiClient, taskId: string, opts: { follow?: boolean }, out: Output): Promise<number> {
  if (!opts.follow) {
    await printStoredLog(api, taskId, out);
    return 0;
  }
  const task = await followLog(api, taskId, out);
  if (out.json) printJson(task);
  else process.stderr.write(statusLine(task));
  return task.status === 'finished' ? 0 : 1;
}
