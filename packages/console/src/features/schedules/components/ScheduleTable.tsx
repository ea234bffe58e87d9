/** Schedule table shared by the Schedule list and Spider detail → Schedules. */
import { useState } from 'react';
import { Switch, Table, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { SCHEDULE_TOGGLE_ERROR, type ScheduleInfo } from '@crawldeck/shared';
import { useToggleSchedule } from '../api.ts';
import { cronForList, describeCron, formatInZone } from '../cron.ts';
import { toasts } from '../../../api/toasts.ts';
import ScheduleActions from './ScheduleActions.tsx';

interface Props {
  schedules: ScheduleInfo[];
  loading?: boolean;
  /** Hide the spider column (inside a spider's detail). */
  hideSpider?: boolean;
  onEdit(s: ScheduleInfo): void;
  onShowTasks(s: ScheduleInfo): void;
}

const STATUS_COLOR: Record<string, string> = { running: 'green', stop: 'default', error: 'red' };

export default function ScheduleTable({ schedules, loading, hideSpider, onEdit, onShowTasks }: Props) {
  const { t, i18n } = useTranslation('schedules');
  const toggle = useToggleSchedule();
  const [toggling, setToggling] = useState<string | null>(null);

  async function onToggle(s: ScheduleInfo, enabled: boolean) {
    setToggling(s._id);
    try {
      await toggle.mutateAsync({ id: s._id, enabled });
    } catch {
      // The fixed English text, unless the locale has its own.
      void toasts().error(t('messages.toggleFailed', { defaultValue: SCHEDULE_TOGGLE_ERROR }));
    } finally {
      setToggling(null);
    }
  }

  return (
    <Table<ScheduleInfo>
      className="schedule-table"
      rowKey="_id"
      size="middle"
      loading={loading}
      dataSource={schedules}
      pagination={{ pageSize: 20, hideOnSinglePage: true, showSizeChanger: false }}
      locale={{ emptyText: t('empty') }}
      scroll={{ x: 1100 }}
      columns={[
        {
          title: t('columns.name'),
          dataIndex: 'name',
          render: (name: string, s) => (
            <div>
              <Typography.Text strong className="schedule-name">
                {name}
              </Typography.Text>
              {s.description && (
                <div>
                  <Typography.Text type="secondary" ellipsis style={{ maxWidth: 240 }}>
                    {s.description}
                  </Typography.Text>
                </div>
              )}
            </div>
          ),
        },
        ...(hideSpider
          ? []
          : [
              {
                title: t('columns.spider'),
                dataIndex: 'spider_name',
                render: (name: string | null, s: ScheduleInfo) =>
                  name ? (
                    <Link to={`/spiders/${s.spider_id}`}>{name}</Link>
                  ) : (
                    <Typography.Text type="danger">-</Typography.Text>
                  ),
              },
            ]),
        {
          title: t('columns.cron'),
          dataIndex: 'cron',
          render: (cron: string, s) => (
            <Tooltip title={`${cron} (${s.timezone})`}>
              <div>
                <Typography.Text code className="schedule-cron" style={{ whiteSpace: 'nowrap' }}>
                  {cronForList(cron)}
                </Typography.Text>
                <div>
                  <Typography.Text type="secondary" className="schedule-cron-text">
                    {describeCron(cron, i18n.language)}
                  </Typography.Text>
                </div>
              </div>
            </Tooltip>
          ),
        },
        {
          title: t('columns.runType'),
          dataIndex: 'run_type',
          render: (r: string, s) => (
            <span>
              {t(`runTypes.${r}`)}
              {r === 'selected-nodes' ? ` (${s.node_ids.length})` : ''}
            </span>
          ),
        },
        {
          title: t('columns.nextRun'),
          dataIndex: 'next_run_ts',
          render: (ts: string | null, s) => <span className="schedule-next-run">{formatInZone(ts, s.timezone)}</span>,
        },
        {
          title: t('columns.lastRun'),
          dataIndex: 'last_run_ts',
          render: (ts: string | null, s) => formatInZone(ts, s.timezone),
        },
        {
          title: t('columns.status'),
          dataIndex: 'status',
          render: (status: string, s) => (
            <Tag color={STATUS_COLOR[status]} className={`schedule-status schedule-status-${status}`}>
              {t(`status.${status}`)}
              {status === 'error' && s.error ? `: ${t(`errors.${s.error}`, { defaultValue: s.error })}` : ''}
            </Tag>
          ),
        },
        {
          title: t('columns.enabled'),
          dataIndex: 'enabled',
          render: (enabled: boolean, s) => (
            <Switch
              className="schedule-enabled"
              size="small"
              checked={enabled}
              loading={toggling === s._id}
              onChange={(v) => void onToggle(s, v)}
            />
          ),
        },
        {
          title: t('columns.action'),
          key: 'action',
          fixed: 'right',
          width: 170,
          render: (_, s) => <ScheduleActions schedule={s} onEdit={onEdit} onShowTasks={onShowTasks} />,
        },
      ]}
    />
  );
}
