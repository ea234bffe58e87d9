// Spider detail "Tasks" tab: the spider's tasks (GET /spiders/{id}/tasks), newest first, refreshed live.
import { useState } from 'react';
import { Space, Typography } from 'antd';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { TASK_PAGE_SIZE } from '@crawldeck/shared';
import { useOwnerTasks, useTaskEvents } from '../../tasks/api.ts';
import TaskTable from '../../tasks/components/TaskTable.tsx';
import { RunSpiderButton } from '../../tasks/components/RunDialog.tsx';
import '../../tasks/tasks.css';
import type { SpiderTabProps } from './types.ts';

export default function TasksTab({ spider, active }: SpiderTabProps) {
  const { t } = useTranslation('route');
  const [page, setPage] = useState(1);
  const tasks = useOwnerTasks('spider', spider._id, page, active);
  useTaskEvents(active);
  return (
    <div data-testid="spider-tasks">
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 12 }}>
        <Link to={`/tasks?spider_id=${spider._id}`}>
          <Typography.Text type="secondary">{t('tasks')} →</Typography.Text>
        </Link>
        <RunSpiderButton spiders={[spider]} type="primary" />
      </Space>
      <TaskTable
        rows={tasks.data?.list ?? []}
        total={tasks.data?.total ?? 0}
        page={page}
        pageSize={TASK_PAGE_SIZE}
        onPage={setPage}
        loading={tasks.isLoading}
        hide={['spider']}
        testId="spider-task-table"
      />
    </div>
  );
}
