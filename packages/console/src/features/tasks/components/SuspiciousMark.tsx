/**
 * The mark of a task that finished but deserves a look: it printed error lines, or it stored no result where the
 * spider's earlier runs stored many. Shown next to the status in the task lists and on the task page.
 */
import { Tag, Tooltip } from 'antd';
import { WarningOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { TaskInfo } from '@crawldeck/shared';

export default function SuspiciousMark({
  task,
  withText = false,
}: {
  task: Pick<TaskInfo, 'suspicious' | 'error_log_count'>;
  withText?: boolean;
}) {
  const { t } = useTranslation('tasks');
  const s = task.suspicious;
  if (!s) return null;
  const why = s.reasons
    .map((r) => t(`suspicious.${r}`, { count: r === 'error_lines' ? task.error_log_count : s.usual_results }))
    .join(' · ');
  const text = `${t('suspicious.label')}: ${why}`;
  // In a table only the icon fits next to the status; its tooltip and aria-label say why.
  return (
    <Tooltip title={withText ? undefined : text}>
      <Tag
        color="warning"
        icon={<WarningOutlined />}
        className="task-suspicious"
        data-testid="task-suspicious"
        data-reasons={s.reasons.join(',')}
        aria-label={text}
      >
        {withText ? text : null}
      </Tag>
    </Tooltip>
  );
}
