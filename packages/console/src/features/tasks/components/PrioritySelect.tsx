/**
 * The queue priority of a task or a schedule: 1 (highest) to 5 (lowest), 3 unless chosen. Used in the Run dialog,
 * the schedule form, the task list's filter and the task table (where a waiting task's priority can change).
 */
import { App, Select, Tag, Tooltip } from 'antd';
import type { SelectProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { PRIORITIES, PRIORITY_DEFAULT, type TaskInfo } from '@crawldeck/shared';
import { failureText } from '../../../api/request.ts';
import { useChangePriority } from '../api.ts';

const COLORS: Record<number, string> = { 1: 'red', 2: 'orange', 3: 'default', 4: 'blue', 5: 'geekblue' };

export function usePriorityOptions() {
  const { t } = useTranslation('tasks');
  return PRIORITIES.map((p) => ({ value: p, label: t(`priority.level${p}`) }));
}

export default function PrioritySelect(props: SelectProps<number>) {
  const options = usePriorityOptions();
  return <Select<number> style={{ width: 160 }} options={options} {...props} />;
}

/** A task's priority as a small tag; the default priority stays plain so that others stand out. */
export function PriorityTag({ priority }: { priority: number }) {
  const { t } = useTranslation('tasks');
  return (
    <Tag color={COLORS[priority] ?? 'default'} bordered={priority !== PRIORITY_DEFAULT} className="task-priority">
      {t(`priority.level${priority}`)}
    </Tag>
  );
}

/**
 * A task's priority in the task table: a waiting task not yet handed to a node can be moved in the queue here;
 * any other task shows its priority.
 */
export function PriorityCell({ task }: { task: TaskInfo }) {
  const { t } = useTranslation('tasks');
  const { message } = App.useApp();
  const change = useChangePriority();
  if (task.status !== 'pending' || task.waiting_reason === 'preparing') return <PriorityTag priority={task.priority} />;
  return (
    <Tooltip title={t('priority.change')}>
      <PrioritySelect
        size="small"
        variant="borderless"
        style={{ width: '100%' }}
        value={task.priority}
        loading={change.isPending}
        className="task-priority-select"
        data-task-id={task._id}
        aria-label={t('priority.label')}
        onChange={(priority) =>
          change.mutate(
            { id: task._id, priority },
            {
              onSuccess: () => void message.success(t('priority.changed')),
              onError: (err) => void message.error(failureText(err)),
            },
          )
        }
      />
    </Tooltip>
  );
}
