/** Task overview: fields, spider and node links (node id of all zeros = none), attempts, error message. */
import { Descriptions, Typography } from 'antd';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { TaskDetail } from '../api.ts';
import { ACTIVE_STATUSES, durations, formatDuration, formatTs, isEmptyId, useNow } from '../format.ts';
import TaskStatusTag from './TaskStatusTag.tsx';
import EndReasonTag from './EndReasonTag.tsx';
import WaitingReason from './WaitingReason.tsx';
import SuspiciousMark from './SuspiciousMark.tsx';
import AttemptsView from './AttemptsView.tsx';

export default function OverviewView({ task }: { task: TaskDetail }) {
  const { t } = useTranslation('tasks');
  const now = useNow(ACTIVE_STATUSES.includes(task.status));
  const d = durations(task, now);
  const none = <Typography.Text type="secondary">{t('none')}</Typography.Text>;
  return (
    <Descriptions
      bordered
      size="small"
      column={{ xs: 1, sm: 1, md: 2 }}
      className="task-overview"
      data-testid="task-overview"
    >
      <Descriptions.Item label={t('fields.id')}>
        <Typography.Text copyable className="mono">
          {task._id}
        </Typography.Text>
      </Descriptions.Item>
      <Descriptions.Item label={t('fields.status')}>
        <span data-testid="task-status">
          <TaskStatusTag status={task.status} />
          <EndReasonTag task={task} />
          <SuspiciousMark task={task} withText />
          <WaitingReason task={task} withText />
        </span>
      </Descriptions.Item>
      <Descriptions.Item label={t('fields.spider')}>
        {task.spider ? (
          <Link to={`/spiders/${task.spider_id}`}>{task.spider.display_name || task.spider.name}</Link>
        ) : (
          task.spider_name || none
        )}
      </Descriptions.Item>
      <Descriptions.Item label={t('fields.node')}>
        {isEmptyId(task.node_id) ? (
          none
        ) : (
          <Link to={`/nodes/${task.node_id}`}>{task.node?.name ?? task.node_name ?? task.node_id}</Link>
        )}
      </Descriptions.Item>
      <Descriptions.Item label={t('fields.runType')}>
        {t(`runTypes.${task.run_type}`, { defaultValue: task.run_type })}
      </Descriptions.Item>
      <Descriptions.Item label={t('fields.type')}>{task.type}</Descriptions.Item>
      <Descriptions.Item label={t('fields.cmd')} span={2}>
        <Typography.Text className="mono" copyable={!!task.cmd}>
          {task.cmd || '-'}
        </Typography.Text>
      </Descriptions.Item>
      <Descriptions.Item label={t('fields.param')}>
        <span className="mono">{task.param || '-'}</span>
      </Descriptions.Item>
      <Descriptions.Item label={t('fields.pid')}>
        <span data-testid="task-pid">{task.pid ?? '-'}</span>
      </Descriptions.Item>
      <Descriptions.Item label={t('fields.createTs')}>{formatTs(task.create_ts)}</Descriptions.Item>
      <Descriptions.Item label={t('fields.waitDuration')}>{formatDuration(d.wait)}</Descriptions.Item>
      <Descriptions.Item label={t('fields.startTs')}>{formatTs(task.start_ts)}</Descriptions.Item>
      <Descriptions.Item label={t('fields.runtimeDuration')}>{formatDuration(d.runtime)}</Descriptions.Item>
      <Descriptions.Item label={t('fields.finishTs')}>{formatTs(task.finish_ts)}</Descriptions.Item>
      <Descriptions.Item label={t('fields.totalDuration')}>{formatDuration(d.total)}</Descriptions.Item>
      <Descriptions.Item label={t('fields.resultCount')}>
        <span data-testid="task-result-count">{task.result_count}</span>
        {task.scrapy_items_mismatch && (
          <Typography.Text type="warning" className="task-items-mismatch" data-testid="task-items-mismatch">
            {' '}
            {t('fields.scrapyItemsMismatch', task.scrapy_items_mismatch)}
          </Typography.Text>
        )}
      </Descriptions.Item>
      <Descriptions.Item label={t('fields.exitCode')}>{task.exit_code ?? '-'}</Descriptions.Item>
      <Descriptions.Item label={t('fields.logPath')} span={2}>
        <span data-testid="task-log-stored">
          {t('fields.logStored', {
            lines: t('fields.logLines', { count: task.log_count }),
            errors: t('fields.logErrors', { count: task.error_log_count }),
          })}
        </span>
      </Descriptions.Item>
      {(task.attempts_max > 1 || task.attempts.length > 1) && (
        <Descriptions.Item label={t('attempts.label')} span={2}>
          <AttemptsView task={task} />
        </Descriptions.Item>
      )}
      {task.parent_id && task.attempt === 1 && (
        <Descriptions.Item label={t('fields.parent')} span={2}>
          <Link to={`/tasks/${task.parent_id}`} className="mono">
            {task.parent_id}
          </Link>
        </Descriptions.Item>
      )}
      <Descriptions.Item label={t('fields.errorMessage')} span={2}>
        {task.error ? (
          <div className="task-error-msg" data-testid="task-error">
            {task.end_reason?.kind === 'command_not_found'
              ? t('endReason.command_not_found', { program: task.end_reason.program, node: task.end_reason.node })
              : task.error}
          </div>
        ) : (
          '-'
        )}
      </Descriptions.Item>
    </Descriptions>
  );
}
