/**
 * Why a pending task still waits: handed to its node and preparing, next in line, every slot busy, a retry waiting
 * for its time, nodes disabled or
 * closed to normal users' tasks, or no node that may run it online. Shown next to the status in the task lists (an
 * icon whose tooltip says why) and on the task page (the reason in words).
 */
import { Tag, Tooltip } from 'antd';
import { HourglassOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { TaskInfo } from '@crawldeck/shared';
import { formatClock } from '../format.ts';

export default function WaitingReason({
  task,
  withText = false,
}: {
  task: Pick<TaskInfo, 'status' | 'waiting_reason' | 'not_before'>;
  withText?: boolean;
}) {
  const { t } = useTranslation('tasks');
  const reason = task.status === 'pending' ? task.waiting_reason : null;
  if (!reason) return null;
  // A retry waiting out its backoff says when it may start.
  const text = t(`waiting.${reason}`, { time: formatClock(task.not_before) });
  const alarming = reason === 'no_node_online' || reason === 'closed_to_user' || reason === 'nodes_disabled';
  return (
    <Tooltip title={withText ? undefined : `${t('waiting.label')}: ${text}`}>
      <Tag
        color={alarming ? 'warning' : 'default'}
        icon={<HourglassOutlined />}
        className="task-waiting"
        data-testid="task-waiting"
        data-reason={reason}
        aria-label={`${t('waiting.label')}: ${text}`}
      >
        {withText ? text : null}
      </Tag>
    </Tooltip>
  );
}
