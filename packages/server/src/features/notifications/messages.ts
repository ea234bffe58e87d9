/**
 * The words of a notification, in the channel's language: a title and a few lines of text, and the console link
 * of what fired (task or node) when the public address of the console is set.
 */
import type { NotifyLang, RuleEvent } from '@crawldeck/shared';

/** What fired: a task (with its spider) or a node, and the numbers the rule compared. */
export interface AlertFacts {
  event: RuleEvent | 'test';
  ruleName: string;
  task?: { id: string; status: string; error: string; spiderName: string; nodeName: string; results: number };
  node?: { id: string; name: string; ip: string };
  schedule?: { id: string; name: string; spiderName: string; error: string };
  /** The results database a task's items could not be written into. */
  dataSource?: { id: string; name: string };
  errorLines?: number;
  threshold?: number;
  usualResults?: number;
  runtimeMs?: number;
  usualRuntimeMs?: number;
  stopped?: boolean;
  /** Node resource rules: the reading (percent) above the threshold, for how long it has been above. */
  usage?: { metric: 'cpu' | 'mem' | 'disk'; value: number; threshold: number; forSeconds: number; sinceMs: number };
}

export interface Message {
  title: string;
  text: string;
  link: string;
}

const TITLES: Record<AlertFacts['event'], Record<NotifyLang, string>> = {
  task_failed: { en: 'Task failed', zh: '任务失败' },
  task_abnormal: { en: 'Task abnormal', zh: '任务异常' },
  task_timed_out: { en: 'Task timed out', zh: '任务超时' },
  task_finished_with_errors: { en: 'Task finished with errors', zh: '任务完成但有错误' },
  error_lines: { en: 'Too many error lines', zh: '错误日志过多' },
  results_below: { en: 'Fewer results than usual', zh: '结果数低于平常' },
  runtime_above: { en: 'Ran longer than usual', zh: '运行时间超出平常' },
  results_db_stalled: { en: 'Results database stalled', zh: '结果数据库写入受阻' },
  schedule_skipped: { en: 'Schedule created no task', zh: '定时任务未能创建任务' },
  node_offline: { en: 'Node offline', zh: '节点离线' },
  node_cpu_above: { en: 'Node CPU usage high', zh: '节点 CPU 使用率过高' },
  node_mem_above: { en: 'Node memory usage high', zh: '节点内存使用率过高' },
  node_disk_above: { en: 'Node disk usage high', zh: '节点磁盘使用率过高' },
  test: { en: 'Test message from Crawldeck', zh: 'Crawldeck 测试消息' },
};

const WORDS = {
  en: {
    rule: 'Rule',
    dataSource: 'Data source',
    schedule: 'Schedule',
    spider: 'Spider',
    task: 'Task',
    status: 'Status',
    node: 'Node',
    error: 'Error',
    results: 'Results',
    usual: 'usual',
    errorLines: 'Error lines',
    runtime: 'Run time',
    stopped: 'The task was stopped.',
    cpu: 'CPU',
    mem: 'Memory',
    disk: 'Disk (data dir)',
    above: 'above the threshold for',
    test: 'If you can read this, the channel works.',
  },
  zh: {
    rule: '规则',
    dataSource: '数据源',
    schedule: '定时任务',
    spider: '爬虫',
    task: '任务',
    status: '状态',
    node: '节点',
    error: '错误',
    results: '结果数',
    usual: '平常',
    errorLines: '错误日志行数',
    runtime: '运行时间',
    stopped: '任务已停止。',
    cpu: 'CPU',
    mem: '内存',
    disk: '磁盘（数据目录）',
    above: '超过阈值已持续',
    test: '看到这条消息说明通知渠道可用。',
  },
} as const;

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 3 : 0)} s`;

export function renderMessage(f: AlertFacts, lang: NotifyLang, publicUrl: string): Message {
  const w = WORDS[lang];
  const lines: string[] = [];
  if (f.event !== 'test') lines.push(`${w.rule}: ${f.ruleName}`);
  if (f.dataSource) lines.push(`${w.dataSource}: ${f.dataSource.name}`);
  if (f.task) {
    lines.push(`${w.spider}: ${f.task.spiderName}`, `${w.task}: ${f.task.id}`, `${w.status}: ${f.task.status}`);
    if (f.task.nodeName) lines.push(`${w.node}: ${f.task.nodeName}`);
    if (f.task.error) lines.push(`${w.error}: ${f.task.error.slice(0, 500)}`);
  }
  if (f.schedule)
    lines.push(
      `${w.schedule}: ${f.schedule.name}`,
      `${w.spider}: ${f.schedule.spiderName}`,
      `${w.error}: ${f.schedule.error.slice(0, 500)}`,
    );
  if (f.node) lines.push(`${w.node}: ${f.node.name}${f.node.ip ? ` (${f.node.ip})` : ''}`);
  if (f.errorLines !== undefined) lines.push(`${w.errorLines}: ${f.errorLines} (≥ ${f.threshold})`);
  if (f.event === 'results_below' && f.task)
    lines.push(`${w.results}: ${f.task.results} (< ${f.threshold}% × ${w.usual} ${f.usualResults})`);
  if (f.runtimeMs !== undefined)
    lines.push(
      `${w.runtime}: ${seconds(f.runtimeMs)} (> ${f.threshold} × ${w.usual} ${seconds(f.usualRuntimeMs ?? 0)})`,
    );
  if (f.usage)
    lines.push(
      `${w[f.usage.metric]}: ${f.usage.value}% (> ${f.usage.threshold}%)`,
      `${w.above} ${Math.round(f.usage.sinceMs / 1000)} s`,
    );
  if (f.stopped) lines.push(w.stopped);
  if (f.event === 'test') lines.push(w.test);
  const path = f.task ? `/tasks/${f.task.id}` : f.node ? `/nodes/${f.node.id}` : f.schedule ? '/schedules' : '/';
  const link = publicUrl ? publicUrl + path : '';
  const subject = f.dataSource?.name ?? f.task?.spiderName ?? f.schedule?.name ?? f.node?.name;
  return {
    title: `[Crawldeck] ${TITLES[f.event][lang]}${subject ? `: ${subject}` : ''}`,
    text: lines.join('\n'),
    link,
  };
}
