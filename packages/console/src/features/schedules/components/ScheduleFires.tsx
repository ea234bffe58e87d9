/**
 * A schedule's latest fires: when each fired, why (cron, catch-up, run now) and what it made — its tasks, the
 * reason it made none, or that it was skipped because the previous run still went.
 */
import { Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ScheduleFireInfo, ScheduleInfo } from '@crawldeck/shared';
import { useScheduleFires } from '../api.ts';
import { formatInZone } from '../cron.ts';

function Outcome({ fire }: { fire: ScheduleFireInfo }) {
  const { t } = useTranslation('schedules');
  if (fire.skipped)
    return (
      <Tag className="schedule-fire-skipped" data-skipped={fire.skipped}>
        {t(`fires.${fire.skipped}`)}
      </Tag>
    );
  if (fire.error)
    return <Typography.Text type="danger">{t(`errors.${fire.error}`, { defaultValue: fire.error })}</Typography.Text>;
  return <>{fire.task_ids.length ? t('fires.tasks', { count: fire.task_ids.length }) : t('fires.none')}</>;
}

export default function ScheduleFires({ schedule }: { schedule: ScheduleInfo }) {
  const { t } = useTranslation('schedules');
  const fires = useScheduleFires(schedule._id);
  return (
    <>
      <Typography.Title level={5}>{t('fires.title')}</Typography.Title>
      <Table<ScheduleFireInfo>
        rowKey="fire_ts"
        size="small"
        className="schedule-fires"
        loading={fires.isLoading}
        dataSource={fires.data ?? []}
        pagination={false}
        columns={[
          {
            title: t('fires.time'),
            dataIndex: 'fire_ts',
            render: (ts: string) => formatInZone(ts, schedule.timezone),
          },
          { title: t('fires.kind'), dataIndex: 'kind', render: (k: ScheduleFireInfo['kind']) => t(`fires.${k}`) },
          { title: t('fires.outcome'), key: 'outcome', render: (_: unknown, f) => <Outcome fire={f} /> },
        ]}
      />
    </>
  );
}
