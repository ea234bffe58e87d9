/**
 * Task table shared by the task list, the spider Tasks tab and the node detail. It fits a 1400 px window without
 * sideways scrolling: start and finish times, the wait and the total duration show only on wider screens (xxl);
 * the task detail has them all.
 */
import { Button, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { DeleteOutlined, EyeOutlined, RedoOutlined, StopOutlined } from '@ant-design/icons';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { TaskInfo } from '@crawldeck/shared';
import { ACTIVE_STATUSES, durations, formatDuration, formatTs, isEmptyId, useNow } from '../format.ts';
import TaskStatusTag from './TaskStatusTag.tsx';
import EndReasonTag from './EndReasonTag.tsx';
import WaitingReason from './WaitingReason.tsx';
import { PriorityCell } from './PrioritySelect.tsx';
import SuspiciousMark from './SuspiciousMark.tsx';
import { useTaskActions } from './useTaskActions.tsx';
import { WIDE_SCREEN_ONLY as WIDE } from '../../../app/breakpoints.ts';

export interface TaskTableProps {
  rows: TaskInfo[];
  /** The pager shown below the table (the lists page by cursor). */
  pager?: React.ReactNode;
  loading?: boolean;
  /** Columns not to show (e.g. 'spider' inside a spider's tab). */
  hide?: Array<'spider' | 'node' | 'schedule'>;
  selected?: string[];
  onSelect?(ids: string[]): void;
  scheduleNames?: Map<string, string>;
  testId?: string;
}

export default function TaskTable({
  rows,
  pager,
  loading,
  hide = [],
  selected,
  onSelect,
  scheduleNames,
  testId = 'task-table',
}: TaskTableProps) {
  const { t } = useTranslation('tasks');
  const navigate = useNavigate();
  const actions = useTaskActions({ deleted: (ids) => onSelect?.((selected ?? []).filter((x) => !ids.includes(x))) });
  const now = useNow(rows.some((r) => ACTIVE_STATUSES.includes(r.status)));

  const columns: NonNullable<TableProps<TaskInfo>['columns']> = [
    {
      title: t('fields.status'),
      dataIndex: 'status',
      key: 'status',
      width: 110,
      fixed: 'left',
      render: (s: string, r) => (
        <Link to={`/tasks/${r._id}`} className="task-link" data-task-id={r._id}>
          <TaskStatusTag status={s} />
          <EndReasonTag task={r} />
          <SuspiciousMark task={r} />
          <WaitingReason task={r} />
          {r.attempt > 1 && (
            <Tag className="task-attempt" data-testid="task-attempt-badge" title={t('attempts.nth', { n: r.attempt })}>
              #{r.attempt}
            </Tag>
          )}
        </Link>
      ),
    },
    ...(hide.includes('spider')
      ? []
      : [
          {
            title: t('fields.spider'),
            dataIndex: 'spider_name',
            key: 'spider',
            width: 160,
            ellipsis: true,
            render: (n: string, r: TaskInfo) => (
              <Link to={`/spiders/${r.spider_id}`} className="task-spider-link">
                {n || r.spider_id.slice(-8)}
              </Link>
            ),
          },
        ]),
    ...(hide.includes('node')
      ? []
      : [
          {
            title: t('fields.node'),
            dataIndex: 'node_name',
            key: 'node',
            width: 120,
            ellipsis: true,
            render: (n: string | undefined, r: TaskInfo) =>
              isEmptyId(r.node_id) ? (
                <Typography.Text type="secondary">{t('none')}</Typography.Text>
              ) : (
                <Link to={`/nodes/${r.node_id}`}>{n || r.node_id.slice(-8)}</Link>
              ),
          },
        ]),
    ...(hide.includes('schedule')
      ? []
      : [
          {
            title: t('fields.schedule'),
            dataIndex: 'schedule_id',
            key: 'schedule',
            width: 110,
            ellipsis: true,
            render: (id: string | null) =>
              id && !isEmptyId(id) ? (
                (scheduleNames?.get(id) ?? id.slice(-8))
              ) : (
                <Typography.Text type="secondary">-</Typography.Text>
              ),
          },
        ]),
    {
      title: t('priority.label'),
      dataIndex: 'priority',
      key: 'priority',
      width: 110,
      render: (_: number, r) => <PriorityCell task={r} />,
    },
    { title: t('fields.createTs'), dataIndex: 'create_ts', key: 'create_ts', width: 160, render: formatTs },
    {
      title: t('fields.startTs'),
      dataIndex: 'start_ts',
      key: 'start_ts',
      width: 160,
      responsive: WIDE,
      render: formatTs,
    },
    {
      title: t('fields.finishTs'),
      dataIndex: 'finish_ts',
      key: 'finish_ts',
      width: 160,
      responsive: WIDE,
      render: formatTs,
    },
    {
      title: t('fields.waitDuration'),
      key: 'wait',
      width: 100,
      align: 'right',
      responsive: WIDE,
      render: (_: unknown, r) => formatDuration(durations(r, now).wait),
    },
    {
      title: t('fields.runtimeDuration'),
      key: 'runtime',
      width: 100,
      align: 'right',
      render: (_: unknown, r) => formatDuration(durations(r, now).runtime),
    },
    {
      title: t('fields.totalDuration'),
      key: 'total',
      width: 100,
      align: 'right',
      responsive: WIDE,
      render: (_: unknown, r) => formatDuration(durations(r, now).total),
    },
    {
      title: t('fields.resultCount'),
      dataIndex: 'result_count',
      key: 'result_count',
      width: 90,
      align: 'right',
      render: (n: number, r) => (
        <span className="task-result-count">
          {n}
          {r.error_log_count > 0 && (
            <Tooltip title={t('errorLineCount', { count: r.error_log_count })}>
              <Typography.Text type="danger" className="task-error-count" data-testid="task-error-count">
                {' '}
                ⚠{r.error_log_count}
              </Typography.Text>
            </Tooltip>
          )}
        </span>
      ),
    },
    {
      title: t('actions'),
      key: 'actions',
      width: 128,
      fixed: 'right',
      render: (_: unknown, r) => (
        <Space size={0}>
          <Tooltip title={t('view')}>
            <Button
              type="text"
              size="small"
              icon={<EyeOutlined />}
              onClick={() => navigate(`/tasks/${r._id}`)}
              aria-label={t('view')}
            />
          </Tooltip>
          {ACTIVE_STATUSES.includes(r.status) ? (
            <Tooltip title={t('cancel')}>
              <Button
                type="text"
                size="small"
                danger
                icon={<StopOutlined />}
                onClick={() => actions.cancel([r._id])}
                aria-label={t('cancel')}
                className="task-row-cancel"
              />
            </Tooltip>
          ) : (
            <Tooltip title={t('restart')}>
              <Button
                type="text"
                size="small"
                icon={<RedoOutlined />}
                onClick={() => actions.restart([r._id])}
                aria-label={t('restart')}
                className="task-row-restart"
              />
            </Tooltip>
          )}
          <Tooltip title={t('delete')}>
            <Button
              type="text"
              size="small"
              danger
              icon={<DeleteOutlined />}
              onClick={() => actions.remove([r._id])}
              aria-label={t('delete')}
              className="task-row-delete"
            />
          </Tooltip>
        </Space>
      ),
    },
  ];

  const table = (
    <Table<TaskInfo>
      rowKey="_id"
      size="middle"
      className="task-table"
      data-testid={testId}
      columns={columns}
      dataSource={rows}
      loading={loading || actions.pending}
      // wider than the columns a 1400 px window shows (so no scrollbar there); the xxl columns widen it further.
      // A number, not 'max-content': with 'max-content' a row's checkbox stopped taking clicks while the list
      // refreshed live.
      scroll={{ x: 1000 }}
      rowSelection={
        onSelect ? { selectedRowKeys: selected ?? [], onChange: (keys) => onSelect(keys as string[]) } : undefined
      }
      pagination={false}
    />
  );
  return (
    <>
      {table}
      {pager}
    </>
  );
}
