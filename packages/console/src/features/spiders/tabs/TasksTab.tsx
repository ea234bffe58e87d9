// Spider detail "Tasks" tab: the spider's tasks (GET /spiders/{id}/tasks), newest first, paged by cursor, refreshed live.
import { Space, Typography } from 'antd';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useTaskEvents } from '../../tasks/api.ts';
import OwnerTaskTable from '../../tasks/components/OwnerTaskTable.tsx';
import { RunSpiderButton } from '../../tasks/components/RunDialog.tsx';
import '../../tasks/tasks.css';
import type { SpiderTabProps } from './types.ts';

export default function TasksTab({ spider, active }: SpiderTabProps) {
  const { t } = useTranslation('route');
  useTaskEvents(active);
  return (
    <div data-testid="spider-tasks">
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 12 }}>
        <Link to={`/tasks?spider_id=${spider._id}`}>
          <Typography.Text type="secondary">{t('tasks')} →</Typography.Text>
        </Link>
        <RunSpiderButton spiders={[spider]} type="primary" />
      </Space>
      <OwnerTaskTable kind="spider" id={spider._id} active={active} testId="spider-task-table" />
    </div>
  );
}
