/**
 * The tasks of one spider or one node, as their detail pages show them in a Tasks tab: newest first, ten a page,
 * paged by cursor like the task list (a spider run every minute for a year still opens its tab at once).
 */
import { TASK_PAGE_SIZE } from '@crawldeck/shared';
import { useOwnerTasks } from '../api.ts';
import TaskTable from './TaskTable.tsx';
import CursorPager from './CursorPager.tsx';
import { useCursorPaging } from './useCursorPaging.ts';

export interface OwnerTaskTableProps {
  kind: 'spider' | 'node';
  id: string;
  /** Fetch only while the tab is the one shown. */
  active: boolean;
  testId: string;
}

export default function OwnerTaskTable({ kind, id, active, testId }: OwnerTaskTableProps) {
  const paging = useCursorPaging(TASK_PAGE_SIZE);
  const tasks = useOwnerTasks(kind, id, paging.cursor, active);
  return (
    <TaskTable
      rows={tasks.data?.list ?? []}
      pager={tasks.data && <CursorPager {...paging.pagerProps(tasks.data)} />}
      loading={tasks.isLoading}
      hide={[kind]}
      testId={testId}
    />
  );
}
