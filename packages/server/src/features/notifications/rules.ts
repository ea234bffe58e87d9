/**
 * When rules fire, hooked onto the events of tasks and nodes:
 * - a task that ended: failed, timed out (failed with the timed-out reason), abnormal, or finished with error
 *   lines, or finished with fewer results than a share of what the spider's earlier finished runs usually store,
 *   or ran longer than a multiple of their usual run time;
 * - a running task whose error lines reach a rule's threshold (once per task; the rule may stop the task);
 * - a task's items that its results database did not take (stalled, unreachable or refusing): once per data source
 *   until a write into it succeeds again;
 * - a schedule fire that created no task;
 * - a node that went offline.
 * A task rule covers the spiders it names, the spiders of the projects it names, and the spiders of projects with
 * one of its tags; a rule naming none covers every spider.
 */
import { END_REASON_PREFIX, SUSPICIOUS_MIN_USUAL_RESULTS, type RuleEvent } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import type {
  DataSourceFailedEvent,
  DataSourceWrittenEvent,
  LogEvent,
  ScheduleSkippedEvent,
  TaskStatusEvent,
} from '../../events.ts';
import { getDataSource } from '../datasources/datasources.store.ts';
import { parseIds } from '../schedules/schedules.store.ts';
import { earlierResults } from '../suspicious/suspicious.store.ts';
import type { AlertFacts } from './messages.ts';
import type { Notifier } from './notifications.service.ts';
import {
  claimFiring,
  earlierRuntimes,
  listEnabledRules,
  nodeForRules,
  projectTags,
  releaseClaims,
  scheduleForRules,
  taskForRules,
  type RuleRow,
} from './notifications.store.ts';

type TaskRow = NonNullable<Awaited<ReturnType<typeof taskForRules>>>;
/** The spider's usual results and run time (ms), read when a rule needs them. */
type Usual = { results?: number; runtime?: number };
/** How long a master trusts that a data source has no stall episode open before ending one again on a write. */
const NO_EPISODE_TRUST_MS = 10_000;
const stallClaim = (dataSourceId: string) => `stall:${dataSourceId}`;

/** The median of the spider's earlier finished runs' results (0 when it has none). */
function median(values: number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The rule events an ended task's status and error stand for. */
function endEvents(t: TaskRow): RuleEvent[] {
  if (t.status === 'abnormal') return ['task_abnormal'];
  if (t.status === 'error')
    return [
      t.error.trimStart().toLowerCase().startsWith(END_REASON_PREFIX.timedOut) ? 'task_timed_out' : 'task_failed',
    ];
  if (t.status === 'finished') return ['task_finished_with_errors', 'results_below', 'runtime_above'];
  return [];
}

export class RuleEngine {
  /** Data sources this master ended the stall episodes of, until when it need not end them again. */
  private readonly noEpisodeUntil = new Map<string, number>();

  constructor(
    private ctx: AppContext,
    private notifier: Notifier,
  ) {}

  private get db() {
    return this.ctx.store.db;
  }

  /** Whether a task or schedule rule covers the spider. */
  private async covers(rule: RuleRow, t: { spider_id: string; project_id: string | null }): Promise<boolean> {
    const [projects, spiders, tags] = [parseIds(rule.project_ids), parseIds(rule.spider_ids), parseIds(rule.tags)];
    if (!projects.length && !spiders.length && !tags.length) return true;
    if (spiders.includes(t.spider_id)) return true;
    if (!t.project_id) return false;
    if (projects.includes(t.project_id)) return true;
    return tags.length > 0 && (await projectTags(this.db, t.project_id)).some((tag) => tags.includes(tag));
  }

  private facts(rule: RuleRow, t: TaskRow, extra: Partial<AlertFacts> = {}): AlertFacts {
    return {
      event: rule.event as RuleEvent,
      ruleName: rule.name,
      task: {
        id: t.id,
        status: t.status,
        error: t.error,
        spiderName: t.spider_name ?? t.spider_id,
        nodeName: t.node_name ?? '',
        results: Number(t.result_count),
      },
      ...extra,
    };
  }

  /** A task reached a final status. */
  async taskEnded(ev: TaskStatusEvent): Promise<void> {
    if (ev.repeat) return;
    const t = await taskForRules(this.db, ev.taskId);
    if (!t || t.status !== ev.status) return;
    const events = endEvents(t);
    if (!events.length) return;
    const usual: Usual = {};
    for (const rule of await listEnabledRules(this.db, events)) {
      if (!(await this.covers(rule, t))) continue;
      const extra = await this.measure(rule, t, usual);
      if (extra) await this.notifier.fire(rule, `spider:${t.spider_id}`, this.facts(rule, t, extra));
    }
  }

  /**
   * Whether a rule's condition holds for an ended task, with the numbers it compared; null when it does not. The
   * spider's usual results and run time are read once per task (`usual`).
   */
  private async measure(rule: RuleRow, t: TaskRow, usual: Usual): Promise<Partial<AlertFacts> | null> {
    const threshold = rule.threshold ?? 0;
    if (rule.event === 'task_finished_with_errors') return Number(t.error_lines) > 0 ? {} : null;
    if (rule.event === 'results_below') {
      usual.results ??= median(await earlierResults(this.db, t.spider_id, t.id, Number(t.create_ts)));
      // Too few usual results to compare with (a spider that rarely stores anything) is no basis for an alert.
      if (usual.results < SUSPICIOUS_MIN_USUAL_RESULTS) return null;
      return Number(t.result_count) < (usual.results * threshold) / 100
        ? { threshold, usualResults: usual.results }
        : null;
    }
    if (rule.event === 'runtime_above') {
      if (t.start_ts == null || t.finish_ts == null) return null;
      usual.runtime ??= median(await earlierRuntimes(this.db, t.spider_id, t.id, Number(t.create_ts)));
      const runtime = Number(t.finish_ts) - Number(t.start_ts);
      // A spider without earlier finished runs has no usual run time yet.
      if (!usual.runtime) return null;
      return runtime > usual.runtime * threshold
        ? { threshold, runtimeMs: runtime, usualRuntimeMs: usual.runtime }
        : null;
    }
    return {};
  }

  /** New log lines of a running task: error-line rules whose threshold the task reached fire once for it. */
  async logged(ev: LogEvent): Promise<void> {
    if (!ev.lines.some((l) => l.is_error)) return;
    const rules = await listEnabledRules(this.db, ['error_lines']);
    if (!rules.length) return;
    const t = await taskForRules(this.db, ev.taskId);
    if (!t) return;
    for (const rule of rules) {
      const threshold = rule.threshold ?? Infinity;
      if (Number(t.error_lines) < threshold || !(await this.covers(rule, t))) continue;
      if (!(await claimFiring(this.db, rule.id, `task:${t.id}`, Date.now(), null))) continue;
      const stopped = !!rule.stop_task && (await this.ctx.execution.cancel(t.id));
      const facts = this.facts(rule, t, { errorLines: Number(t.error_lines), threshold, stopped });
      await this.notifier.fire(rule, `spider:${t.spider_id}`, facts);
    }
  }

  /**
   * A write into a task's results database failed: the rules covering the task's spider fire once for the data
   * source, until a write into it succeeds again (the claim in the store ends the episode for every master).
   */
  async dataSourceFailed(ev: DataSourceFailedEvent): Promise<void> {
    this.noEpisodeUntil.delete(ev.dataSourceId);
    const rules = await listEnabledRules(this.db, ['results_db_stalled']);
    if (!rules.length) return;
    const t = await taskForRules(this.db, ev.taskId);
    if (!t) return;
    const ds = await getDataSource(this.db, ev.dataSourceId);
    const dataSource = { id: ev.dataSourceId, name: ds?.name ?? ev.dataSourceId };
    for (const rule of rules) {
      if (!(await this.covers(rule, t))) continue;
      if (!(await claimFiring(this.db, rule.id, stallClaim(ev.dataSourceId), Date.now(), null))) continue;
      const facts = this.facts(rule, { ...t, error: ev.error }, { dataSource });
      await this.notifier.fire(rule, `datasource:${ev.dataSourceId}`, facts);
    }
  }

  /** A write into a results database succeeded: its stall episode, if one is open, is over. */
  async dataSourceWritten(ev: DataSourceWrittenEvent): Promise<void> {
    const now = Date.now();
    if ((this.noEpisodeUntil.get(ev.dataSourceId) ?? 0) > now) return;
    this.noEpisodeUntil.set(ev.dataSourceId, now + NO_EPISODE_TRUST_MS);
    await releaseClaims(this.db, stallClaim(ev.dataSourceId));
  }

  /** A schedule fire created no task. */
  async scheduleSkipped(ev: ScheduleSkippedEvent): Promise<void> {
    const rules = await listEnabledRules(this.db, ['schedule_skipped']);
    if (!rules.length) return;
    const s = await scheduleForRules(this.db, ev.scheduleId);
    if (!s) return;
    const schedule = { id: s.id, name: s.name, spiderName: s.spider_name ?? s.spider_id, error: ev.error };
    for (const rule of rules)
      if (await this.covers(rule, s))
        await this.notifier.fire(rule, `schedule:${s.id}`, {
          event: 'schedule_skipped',
          ruleName: rule.name,
          schedule,
        });
  }

  /** A node went offline. */
  async nodeOffline(nodeId: string): Promise<void> {
    const rules = await listEnabledRules(this.db, ['node_offline']);
    if (!rules.length) return;
    const n = await nodeForRules(this.db, nodeId);
    const node = { id: nodeId, name: n?.name ?? nodeId, ip: n?.ip ?? '' };
    for (const rule of rules)
      await this.notifier.fire(rule, `node:${nodeId}`, { event: 'node_offline', ruleName: rule.name, node });
  }
}
