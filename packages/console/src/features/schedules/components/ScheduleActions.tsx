/** A schedule's row actions: run it now, its tasks, edit, delete. */
import { Button, Popconfirm, Space, Tooltip } from 'antd';
import { DeleteOutlined, EditOutlined, PlayCircleOutlined, UnorderedListOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { ScheduleInfo } from '@crawldeck/shared';
import { useDeleteSchedule, useRunSchedule } from '../api.ts';
import { toasts } from '../../../api/toasts.ts';

interface Props {
  schedule: ScheduleInfo;
  onEdit(s: ScheduleInfo): void;
  onShowTasks(s: ScheduleInfo): void;
}

export default function ScheduleActions({ schedule: s, onEdit, onShowTasks }: Props) {
  const { t } = useTranslation('schedules');
  const del = useDeleteSchedule();
  const run = useRunSchedule();
  return (
    <Space size={2}>
      <Popconfirm
        title={t('actions.confirmRun', { name: s.name })}
        onConfirm={() =>
          run.mutateAsync(s._id).then((r) => void toasts().success(t('messages.started', { count: r.task_ids.length })))
        }
      >
        <Tooltip title={t('actions.run')}>
          <Button
            type="text"
            size="small"
            icon={<PlayCircleOutlined />}
            className="schedule-run"
            aria-label={t('actions.run')}
          />
        </Tooltip>
      </Popconfirm>
      <Tooltip title={t('actions.tasks')}>
        <Button
          type="text"
          size="small"
          icon={<UnorderedListOutlined />}
          className="schedule-tasks"
          aria-label={t('actions.tasks')}
          onClick={() => onShowTasks(s)}
        />
      </Tooltip>
      <Tooltip title={t('actions.edit')}>
        <Button
          type="text"
          size="small"
          icon={<EditOutlined />}
          className="schedule-edit"
          aria-label={t('actions.edit')}
          onClick={() => onEdit(s)}
        />
      </Tooltip>
      <Popconfirm
        title={t('actions.confirmDelete', { name: s.name })}
        onConfirm={() => del.mutateAsync(s._id).then(() => void toasts().success(t('messages.deleted')))}
      >
        <Tooltip title={t('actions.delete')}>
          <Button
            type="text"
            size="small"
            danger
            icon={<DeleteOutlined />}
            className="schedule-delete"
            aria-label={t('actions.delete')}
          />
        </Tooltip>
      </Popconfirm>
    </Space>
  );
}
