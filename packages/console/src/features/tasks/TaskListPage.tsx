/**
 * /tasks: every task, newest first, 10 per page unless the user picks another size; filters by node, spider,
 * status, schedule and priority, plus a task type that is "spider" (the only type there is so far); batch cancel / restart /
 * delete; refreshed live from `GET /api/events`. Pages follow the list's cursors (next, previous, last), so a page
 * deep in millions of tasks costs what the first one does; the total of a long list reads "more than 10,000".
 */
import { useEffect, useMemo, useState } from 'react';
import { Badge, Button, Card, Select, Space, Tooltip, Typography } from 'antd';
import { DeleteOutlined, RedoOutlined, ReloadOutlined, StopOutlined } from '@ant-design/icons';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { TASK_PAGE_SIZE, TASK_STATUSES, type TaskStatus } from '@crawldeck/shared';
import { useFilterOptions, useTaskEvents, useTasks, type TaskQuery } from './api.ts';
import TaskTable from './components/TaskTable.tsx';
import CursorPager from './components/CursorPager.tsx';
import { useCursorPaging } from './components/useCursorPaging.ts';
import { useTaskActions } from './components/useTaskActions.tsx';
import TaskStatusTag from './components/TaskStatusTag.tsx';
import PrioritySelect from './components/PrioritySelect.tsx';
import './tasks.css';
import TourFor from '../tours/TourFor.tsx';
import { getDefaultPageSize } from '../setting/preferences.ts';

const URL_FILTERS = ['node_id', 'spider_id', 'status', 'schedule_id', 'priority'] as const;
const LIVE: readonly string[] = ['pending', 'running'];

/** The list's address with its filters, so a reload or a shared link shows the same tasks. */
function filtersUrl(query: TaskQuery): string {
  const p = new URLSearchParams();
  for (const k of URL_FILTERS) if (query[k]) p.set(k, String(query[k]));
  const qs = p.toString();
  return qs ? `/tasks?${qs}` : '/tasks';
}

export default function TaskListPage() {
  const { t } = useTranslation(['tasks', 'route']);
  const location = useLocation();
  const navigate = useNavigate();
  const active = location.pathname === '/tasks';
  const [query, setQuery] = useState<TaskQuery>(() => ({
    page_size: getDefaultPageSize(TASK_PAGE_SIZE),
    type: 'spider',
  }));
  const [selected, setSelected] = useState<string[]>([]);
  const paging = useCursorPaging(query.page_size, () => setSelected([]));
  const tasks = useTasks({ ...query, cursor: paging.cursor });
  const { spiders, nodes, schedules } = useFilterOptions();
  useTaskEvents(active);
  const actions = useTaskActions({ done: () => setSelected([]) });
  const { reset } = paging;

  // /tasks?schedule_id=… (schedule drawer), ?spider_id=…, ?node_id=…, ?status=…, ?priority=… preset the filters.
  useEffect(() => {
    if (!active) return;
    const p = new URLSearchParams(location.search);
    if (!URL_FILTERS.some((k) => p.has(k))) return;
    const given = Object.fromEntries(URL_FILTERS.map((k) => [k, p.get(k) || undefined]));
    setQuery((q) => ({ ...q, ...given, priority: given.priority ? Number(given.priority) : undefined }));
    reset();
  }, [active, location.search, reset]);

  const update = (patch: Partial<TaskQuery>) => {
    const next = { ...query, ...patch };
    setQuery(next);
    reset();
    setSelected([]);
    void navigate(filtersUrl(next), { replace: true });
  };
  // Cancel only makes sense for a selection holding a task that has not ended yet.
  const cancellable = (tasks.data?.list ?? []).some((r) => selected.includes(r._id) && LIVE.includes(r.status));
  const pager = tasks.data && <CursorPager {...paging.pagerProps(tasks.data)} />;
  const scheduleNames = useMemo(() => new Map((schedules.data ?? []).map((s) => [s._id, s.name])), [schedules.data]);

  return (
    <div className="app-page tasks-page" data-page="tasks">
      <TourFor name="task-list" />
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title" data-tour="task-list-title">
          {t('route:tasks')}
        </Typography.Title>
        <Typography.Text type="secondary" className="app-page-subtitle">
          {t('tasks:subtitle')}
        </Typography.Text>
        <Tooltip title={t('tasks:liveHint')}>
          <Badge status="processing" text={t('tasks:live')} className="tasks-live-badge" data-tour="task-list-live" />
        </Tooltip>
      </div>
      <Card data-tour="task-list-table">
        <div className="tasks-toolbar">
          <Space wrap size={8} data-tour="task-list-filter">
            <Select
              allowClear
              showSearch
              optionFilterProp="label"
              placeholder={t('tasks:filters.node')}
              style={{ width: 160 }}
              value={query.node_id}
              onChange={(v) => update({ node_id: v })}
              options={(nodes.data ?? []).map((n) => ({ value: n._id, label: n.name }))}
              data-testid="task-filter-node"
            />
            <Select
              allowClear
              showSearch
              optionFilterProp="label"
              placeholder={t('tasks:filters.spider')}
              style={{ width: 200 }}
              value={query.spider_id}
              onChange={(v) => update({ spider_id: v })}
              options={(spiders.data ?? []).map((s) => ({ value: s._id, label: s.display_name || s.name }))}
              data-testid="task-filter-spider"
            />
            <Select
              allowClear
              placeholder={t('tasks:filters.status')}
              style={{ width: 150 }}
              value={query.status}
              onChange={(v: TaskStatus | undefined) => update({ status: v })}
              options={TASK_STATUSES.map((s) => ({ value: s, label: <TaskStatusTag status={s} /> }))}
              data-testid="task-filter-status"
            />
            <Select
              allowClear
              showSearch
              optionFilterProp="label"
              placeholder={t('tasks:filters.schedule')}
              style={{ width: 180 }}
              value={query.schedule_id}
              onChange={(v) => update({ schedule_id: v })}
              options={(schedules.data ?? []).map((s) => ({ value: s._id, label: s.name }))}
              data-testid="task-filter-schedule"
            />
            <PrioritySelect
              allowClear
              placeholder={t('tasks:priority.filter')}
              style={{ width: 150 }}
              value={query.priority}
              onChange={(v?: number) => update({ priority: v })}
              data-testid="task-filter-priority"
            />
            <Select
              style={{ width: 130 }}
              value={query.type ?? 'spider'}
              onChange={(v) => update({ type: v })}
              options={[{ value: 'spider', label: t('tasks:filters.spiderType') }]}
              aria-label={t('tasks:filters.type')}
            />
            <Tooltip title={t('tasks:refresh')}>
              <Button
                data-tour="task-list-refresh"
                icon={<ReloadOutlined />}
                onClick={() => void tasks.refetch()}
                loading={tasks.isFetching}
              />
            </Tooltip>
          </Space>
          <Space wrap size={8}>
            {selected.length > 0 && (
              <>
                <Typography.Text type="secondary">{t('tasks:selected', { count: selected.length })}</Typography.Text>
                <Tooltip title={cancellable ? '' : t('tasks:cancelNothing')}>
                  <Button
                    icon={<StopOutlined />}
                    disabled={!cancellable}
                    onClick={() => actions.cancel(selected)}
                    data-testid="task-batch-cancel"
                  >
                    {t('tasks:cancel')}
                  </Button>
                </Tooltip>
                <Button
                  icon={<RedoOutlined />}
                  onClick={() => actions.restart(selected)}
                  data-testid="task-batch-restart"
                >
                  {t('tasks:restart')}
                </Button>
                <Button
                  danger
                  icon={<DeleteOutlined />}
                  onClick={() => actions.remove(selected)}
                  data-testid="task-batch-delete"
                >
                  {t('tasks:delete')}
                </Button>
              </>
            )}
          </Space>
        </div>
        <TaskTable
          rows={tasks.data?.list ?? []}
          pager={pager}
          loading={tasks.isLoading}
          selected={selected}
          onSelect={setSelected}
          scheduleNames={scheduleNames}
        />
      </Card>
    </div>
  );
}
