// Spider detail "Schedules" tab: this spider's schedules, with add/edit/run/toggle/delete.
import { useState } from 'react';
import { Button, Space } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { ScheduleInfo } from '@crawldeck/shared';
import { useSchedules } from '../../schedules/api.ts';
import ScheduleTable from '../../schedules/components/ScheduleTable.tsx';
import ScheduleFormModal from '../../schedules/components/ScheduleFormModal.tsx';
import ScheduleTasksDrawer from '../../schedules/components/ScheduleTasksDrawer.tsx';
import type { SpiderTabProps } from './types.ts';

export default function SchedulesTab({ spider, active }: SpiderTabProps) {
  const { t } = useTranslation('schedules');
  const schedules = useSchedules(spider._id, active);
  const [editing, setEditing] = useState<ScheduleInfo | null | undefined>(undefined);
  const [tasksOf, setTasksOf] = useState<ScheduleInfo | null>(null);
  const rows = (schedules.data ?? []).filter((s) => s.spider_id === spider._id);
  return (
    <div data-tab="schedules">
      <Space style={{ marginBottom: 12 }}>
        <Button type="primary" icon={<PlusOutlined />} className="schedule-add" onClick={() => setEditing(null)}>
          {t('add')}
        </Button>
      </Space>
      <ScheduleTable
        schedules={rows}
        loading={schedules.isLoading}
        hideSpider
        onEdit={setEditing}
        onShowTasks={setTasksOf}
      />
      <ScheduleFormModal
        open={editing !== undefined}
        schedule={editing}
        spiderId={spider._id}
        onClose={() => setEditing(undefined)}
      />
      <ScheduleTasksDrawer schedule={tasksOf} onClose={() => setTasksOf(null)} />
    </div>
  );
}
