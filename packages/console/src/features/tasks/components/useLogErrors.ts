/**
 * The error lines of a task's log for the 'next error' jump: those the server has indexed plus live lines
 * marked as errors that the index has not caught up with yet, in line order, and how many there are.
 */
import { useMemo } from 'react';
import { useErrorLog, type TaskDetail } from '../api.ts';
import type { LiveLine } from './LogView.tsx';

export function useLogErrors(task: TaskDetail, live: LiveLine[], active: boolean) {
  const errors = useErrorLog(task._id, active);
  const errorList = useMemo(() => errors.data?.list ?? [], [errors.data]);
  const liveErrors = useMemo(
    () => live.filter((l) => l.is_error && !errorList.some((e) => e.line_no === l.line_no)),
    [live, errorList],
  );
  const errorLines = useMemo(
    () => [...errorList.map((e) => e.line_no), ...liveErrors.map((l) => l.line_no)].sort((a, b) => a - b),
    [errorList, liveErrors],
  );
  const errorCount = Math.max(errors.data?.total ?? 0, task.error_log_count ?? 0) + liveErrors.length;
  return { errorLines, errorCount };
}
