import { createParser } from 'eventsource-parser';
import { FINAL_TASK_STATUSES, LOG_PAGE_SIZE, type TaskInfo } from '@crawldeck/shared';
import type { ApiClient } from '../api-client.ts';
import type { Output } from '../output.ts';

export interface LogLine {
  line_no: number;
  msg: string;
  is_error: boolean;
}

/** Called for each line of a followed log, with the task as last heard of (its node once it has one). */
export type LinePrinter = (line: LogLine, task: TaskInfo | undefined) => void;

/**
 * How log lines are printed: as they are, or with several tasks followed at once (one per node, their lines
 * interleaved) each after its node's name; with --json each line is one JSON object naming its task and node.
 */
export function linePrinter(out: Output, several: boolean): LinePrinter {
  return (line, task) => {
    const node = task?.node_name ?? null;
    if (out.json) {
      const { line_no, msg, is_error } = line;
      process.stdout.write(JSON.stringify({ type: 'log', task_id: task?._id, node, line_no, msg, is_error }) + '\n');
      return;
    }
    const text = several ? `[${node ?? task?._id ?? '?'}] ${line.msg}` : line.msg;
    process.stdout.write(out.tty && line.is_error ? `\x1b[31m${text}\x1b[0m\n` : `${text}\n`);
  };
}

/**
 * The stored log after line `after`, page by page (a page holds the lines numbered up to its end, so reading on from
 * a line starts at the page holding it and skips what was printed already).
 */
async function printStoredLog(
  api: ApiClient,
  taskId: string,
  after: number,
  print: (line: LogLine) => void,
): Promise<void> {
  for (let page = Math.floor(after / LOG_PAGE_SIZE) + 1; ; page++) {
    const { data, total } = await api.call<LogLine[]>('GET', `/tasks/${taskId}/log`, {
      query: { page_num: page, page_size: LOG_PAGE_SIZE },
    });
    for (const l of data) if (l.line_no > after) print(l);
    if (!data.length || page * LOG_PAGE_SIZE >= (total ?? 0)) return;
  }
}

/**
 * Follows a task's log through the master's live stream (the one the console's log view uses): the stored lines
 * first, then each new line as it is ingested, until the task reaches a final status; then whatever the stream had
 * not brought yet comes from the stored log, so an ended task's log is printed whole. Returns that task.
 */
export async function followLog(api: ApiClient, taskId: string, print: LinePrinter): Promise<TaskInfo> {
  const abort = new AbortController();
  const res = await api.stream(`/tasks/${taskId}/stream`, { from: 0 }, abort.signal);
  let final: TaskInfo | undefined;
  let latest: TaskInfo | undefined;
  let printed = 0;
  const parser = createParser({
    onEvent(ev) {
      if (ev.event === 'log')
        for (const l of JSON.parse(ev.data) as LogLine[]) {
          print(l, latest);
          printed = l.line_no;
        }
      if (ev.event === 'status') {
        latest = JSON.parse(ev.data) as TaskInfo;
        if (FINAL_TASK_STATUSES.includes(latest.status)) final = latest;
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
  const ended = final ?? (await api.call<TaskInfo>('GET', `/tasks/${taskId}`)).data;
  // The stream tells the status before the stored lines: those not printed yet are read from the stored log.
  await printStoredLog(api, taskId, printed, (l) => print(l, ended));
  return ended;
}

export function statusLine(task: TaskInfo): string {
  const tail = task.error ? `: ${task.error}` : '';
  return `Task ${task._id} ${task.status} (${task.result_count} results, ${task.error_log_count} error lines)${tail}\n`;
}

export async function logs(api: ApiClient, taskId: string, opts: { follow?: boolean }, out: Output): Promise<number> {
  const print = linePrinter(out, false);
  if (!opts.follow) {
    const task = (await api.call<TaskInfo>('GET', `/tasks/${taskId}`)).data;
    await printStoredLog(api, taskId, 0, (line) => print(line, task));
    return 0;
  }
  const task = await followLog(api, taskId, print);
  const code = task.status === 'finished' ? 0 : 1;
  // With --json the last line is the summary: how the task ended and the exit code.
  if (out.json) process.stdout.write(JSON.stringify({ type: 'summary', exit_code: code, task }) + '\n');
  else process.stderr.write(statusLine(task));
  return code;
}
