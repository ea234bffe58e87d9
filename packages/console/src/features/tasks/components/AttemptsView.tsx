/**
 * The attempts of a run on the task page: "attempt n of m" and a link to each other attempt with its status (a
 * retry waiting out its backoff shows when it may start). Shown when the run may retry or did.
 */
import { Space, Typography } from 'antd';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { TaskDetail } from '../api.ts';
import TaskStatusTag from './TaskStatusTag.tsx';
import { formatClock } from '../format.ts';

export default function AttemptsView({ task }: { task: TaskDetail }) {
  const { t } = useTranslation('tasks');
  return (
    <Space wrap size={[12, 4]} data-testid="task-attempts">
      <Typography.Text strong data-testid="task-attempt">
        {t('attempts.nOfM', { n: task.attempt, m: task.attempts_max })}
      </Typography.Text>
      {task.attempts
        .filter((a) => a._id !== task._id)
        .map((a) => (
          <Link key={a._id} to={`/tasks/${a._id}`} data-attempt={a.attempt}>
            {t('attempts.nth', { n: a.attempt })} <TaskStatusTag status={a.status} />
            {a.status === 'pending' && a.not_before && (
              <Typography.Text type="secondary">
                {t('waiting.retry_backoff', { time: formatClock(a.not_before) })}
              </Typography.Text>
            )}
          </Link>
        ))}
    </Space>
  );
}
