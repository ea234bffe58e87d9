/**
 * Why a task ended other than finished, in the reader's language: out of memory, process limit, signal N, exit code
 * N, node lost, a program the node does not have. Plain cancels and errors show nothing more than their status; the task's error text is the tooltip.
 */
import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import type { TaskInfo } from '@crawldeck/shared';

export default function EndReasonTag({ task }: { task: Pick<TaskInfo, 'end_reason' | 'error'> }) {
  const { t } = useTranslation('tasks');
  const r = task.end_reason;
  if (!r || r.kind === 'cancelled' || r.kind === 'error') return null;
  const tag = (
    <Tag className="task-end-reason" data-testid="task-end-reason" data-reason={r.kind}>
      {t(`endReason.${r.kind}`, { signal: r.signal, code: r.code, program: r.program, node: r.node })}
    </Tag>
  );
  return task.error ? <Tooltip title={task.error}>{tag}</Tooltip> : tag;
}
