/** A schedule's own task history (GET /schedules/{id}/tasks), refreshed every 2 s, and its latest fires. */
import { useState } from 'react';
import { Drawer, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ScheduleInfo } from '@crawldeck/shared';
import { useScheduleTasks, type ScheduleTask } from '../api.ts';
import { formatInZone } from '../cron.ts';
import TaskStatusTag from '../../tasks/components/TaskStatusTag.tsx';
import ScheduleFires from './ScheduleFires.tsx';

export default function ScheduleTasksDrawer({ schedule, onClose }: { schedule: ScheduleInfo | null; onClose(): void }) {
  const { t } = useTranslation('schedules');
  const [page, setPage] = useState(1);
  const tasks = useScheduleTasks(schedule?._id ?? null, page);
  return (
    <Drawer
      open={!!schedule}
      onClose={onClose}
      width={760}
      title={schedule ? t('tasks.title', { name: schedule.name }) : ''}
      className="schedule-tasks-drawer"
      destroyOnHidden
    >
      {schedule && (
        <>
          <Typography.Paragraph>
            <Link to={`/tasks?schedule_id=${schedule._id}`}>{t('tasks.openList')}</Link>
          </Typography.Paragraph>
          <Table<ScheduleTask>
            className="schedule-tasks-table"
            rowKey="_id"
            size="small"
            loading={tasks.isLoading}
            dataSource={tasks.data?.list ?? []}
            pagination={{
              current: page,
              pageSize: 10,
              total: tasks.data?.total ?? 0,
              onChange: setPage,
              showSizeChanger: false,
            }}
            columns={[
              {
                title: t('tasks.id'),
                dataIndex: '_id',
                render: (id: string, r) => (
                  <span>
                    <Link to={`/tasks/${id}`} className="schedule-task-link" data-schedule-id={r.schedule_id}>
                      {id.slice(-8)}
                    </Link>
                    {r.parent_id ? <Tag style={{ marginLeft: 6 }}>{t('tasks.retryOf')}</Tag> : null}
                  </span>
                ),
              },
              { title: t('tasks.node'), dataIndex: 'node_name', render: (n: string) => n || '-' },
              {
                title: t('tasks.status'),
                dataIndex: 'status',
                render: (s: string) => <TaskStatusTag status={s} />,
              },
              {
                title: t('tasks.created'),
                dataIndex: 'create_ts',
                render: (ts: string | null) => formatInZone(ts, schedule.timezone),
              },
              {
                title: t('tasks.finished'),
                dataIndex: 'finish_ts',
                render: (ts: string | null) => formatInZone(ts, schedule.timezone),
              },
              { title: t('tasks.results'), dataIndex: 'result_count' },
            ]}
          />
          <ScheduleFires schedule={schedule} />
        </>
      )}
    </Drawer>
  );
}
