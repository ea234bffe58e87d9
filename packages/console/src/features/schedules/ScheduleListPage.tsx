/** /schedules: every schedule with spider, cron (without seconds), description, next run, status and switch. */
import { useMemo, useState } from 'react';
import { Button, Card, Input, Space, Typography } from 'antd';
import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { ScheduleInfo } from '@crawldeck/shared';
import { useSchedules } from './api.ts';
import ScheduleTable from './components/ScheduleTable.tsx';
import ScheduleFormModal from './components/ScheduleFormModal.tsx';
import ScheduleTasksDrawer from './components/ScheduleTasksDrawer.tsx';
import TourFor from '../tours/TourFor.tsx';

export default function ScheduleListPage() {
  const { t } = useTranslation(['schedules', 'route']);
  const schedules = useSchedules();
  const [keyword, setKeyword] = useState('');
  const [editing, setEditing] = useState<ScheduleInfo | null | undefined>(undefined);
  const [tasksOf, setTasksOf] = useState<ScheduleInfo | null>(null);
  const rows = useMemo(() => {
    const kw = keyword.trim().toLowerCase();
    const all = schedules.data ?? [];
    return kw
      ? all.filter((s) => s.name.toLowerCase().includes(kw) || (s.spider_name ?? '').toLowerCase().includes(kw))
      : all;
  }, [schedules.data, keyword]);

  return (
    <div className="app-page" data-page="schedules">
      <TourFor name="schedule-list" />
      <Typography.Title level={4} className="app-page-title">
        {t('route:schedules')}
      </Typography.Title>
      <Card data-tour="schedule-list-table">
        <Space style={{ marginBottom: 16, width: '100%', justifyContent: 'space-between' }} wrap>
          <Input.Search
            allowClear
            placeholder={t('search')}
            onChange={(e) => setKeyword(e.target.value)}
            style={{ width: 260 }}
          />
          <Space>
            <Button icon={<ReloadOutlined />} onClick={() => void schedules.refetch()}>
              {t('refresh')}
            </Button>
            <Button
              type="primary"
              icon={<PlusOutlined />}
              className="schedule-add"
              data-tour="schedule-list-add"
              onClick={() => setEditing(null)}
            >
              {t('add')}
            </Button>
          </Space>
        </Space>
        <ScheduleTable schedules={rows} loading={schedules.isLoading} onEdit={setEditing} onShowTasks={setTasksOf} />
      </Card>
      <ScheduleFormModal open={editing !== undefined} schedule={editing} onClose={() => setEditing(undefined)} />
      <ScheduleTasksDrawer schedule={tasksOf} onClose={() => setTasksOf(null)} />
    </div>
  );
}
