/**
 * /tasks/{id}: Overview, Log and Results tabs, opened on the live log while the task runs. While the task is
 * pending or running, the page follows it over `GET /api/tasks/{id}/stream` (SSE): status snapshots and new log
 * lines are pushed, nothing polls. Cancel reloads the task; restart opens the new task; delete goes back to the list.
 */
import { useEffect, useRef, useState } from 'react';
import { useUrlTab } from '../../app/useUrlTab.ts';
import { useViewLabel } from '../../app/useViewLabel.ts';
import { DetailFallback } from '../../app/DetailFallback.tsx';
import { Button, Card, Space, Tabs, Typography } from 'antd';
import { ArrowLeftOutlined, DeleteOutlined, RedoOutlined, StopOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { FINAL_TASK_STATUSES, type TaskInfo } from '@crawldeck/shared';
import { taskKeys, useTask, useTaskEvents, type TaskDetail } from './api.ts';
import { ACTIVE_STATUSES } from './format.ts';
import { openSse } from './sse.ts';
import OverviewView from './components/OverviewView.tsx';
import LogView, { type LiveLine } from './components/LogView.tsx';
import ResultsView from './components/ResultsView.tsx';
import { ScrapyStatsTab } from './components/ScrapyStatsTab.tsx';
import TaskStatusTag from './components/TaskStatusTag.tsx';
import EndReasonTag from './components/EndReasonTag.tsx';
import { useTaskActions } from './components/useTaskActions.tsx';
import './tasks.css';
import TourFor from '../tours/TourFor.tsx';

const TABS = ['overview', 'log', 'results', 'stats'] as const;
const LIVE_KEEP = 20_000;

/** The task's tab title: its spider and the end of its id (the random part, which tells tasks apart). */
function taskLabel(task: TaskDetail): string {
  return `${task.spider?.display_name || task.spider_name || ''} #${task._id.slice(-6)}`.trim();
}

/** Live tail + status of one task while it is active. Lines are kept in order, deduplicated by line number. */
function useTaskStream(task: TaskDetail | null | undefined, enabled: boolean): LiveLine[] {
  const qc = useQueryClient();
  const [live, setLive] = useState<LiveLine[]>([]);
  const last = useRef(0);
  const id = task?._id ?? '';
  const on = enabled && !!task && ACTIVE_STATUSES.includes(task.status);
  const startFrom = useRef(0);
  startFrom.current = Math.max(last.current, task?.log_count ?? 0);

  useEffect(() => {
    setLive([]);
    last.current = 0;
  }, [id]);

  useEffect(() => {
    if (!on) return;
    let opened = false;
    const close = openSse(() => `/tasks/${id}/stream?from=${Math.max(last.current, startFrom.current)}`, {
      onOpen: () => {
        // Lines stored between the page fetch and the stream start come with the page refetch.
        if (opened) return;
        opened = true;
        void qc.invalidateQueries({ queryKey: ['tasks', 'log', id] });
      },
      onEvent: (event, data) => {
        if (event === 'log') {
          const lines = (data as LiveLine[]).filter((l) => l.line_no > last.current);
          if (!lines.length) return;
          last.current = lines[lines.length - 1].line_no;
          setLive((prev) => {
            const next = prev.concat(lines);
            return next.length > LIVE_KEEP ? next.slice(next.length - LIVE_KEEP) : next;
          });
          if (lines.some((l) => l.is_error)) void qc.invalidateQueries({ queryKey: taskKeys.errors(id) });
        } else if (event === 'status') {
          const s = data as TaskInfo;
          qc.setQueryData<TaskDetail | null>(taskKeys.detail(id), (prev) => (prev ? { ...prev, ...s } : prev));
          if ((FINAL_TASK_STATUSES as readonly string[]).includes(s.status)) {
            void qc.invalidateQueries({ queryKey: taskKeys.detail(id) });
            void qc.invalidateQueries({ queryKey: ['tasks', 'log', id] });
            void qc.invalidateQueries({ queryKey: taskKeys.errors(id) });
            void qc.invalidateQueries({ queryKey: ['tasks', 'results', id] });
          }
        }
      },
    });
    return close;
  }, [on, id, qc]);
  return live;
}

export default function TaskDetailPage() {
  const { t } = useTranslation(['tasks', 'route']);
  const { id = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const task = useTask(id);
  const active = location.pathname === `/tasks/${id}`;
  // A task that is running when the page opens is shown on its live log; a finished one on its overview.
  const openedRunning = useRef<boolean | null>(null);
  if (openedRunning.current === null && task.data) openedRunning.current = ACTIVE_STATUSES.includes(task.data.status);
  const [tab, selectTab] = useUrlTab(TABS, active, openedRunning.current ? 'log' : undefined);
  useViewLabel(`/tasks/${id}`, task.data ? taskLabel(task.data) : undefined);
  const live = useTaskStream(task.data, active);
  // A finished task is no longer streamed: its later changes (restart elsewhere, delete) come from /api/events.
  useTaskEvents(active, (ev) => {
    if (ev.taskId === id && ev.status !== 'deleted') void qc.invalidateQueries({ queryKey: taskKeys.detail(id) });
  });
  const actions = useTaskActions({
    restarted: (ids) => ids[0] && navigate(`/tasks/${ids[0]}`),
    deleted: () => navigate('/tasks'),
    done: () => void qc.invalidateQueries({ queryKey: taskKeys.detail(id) }),
  });

  if (!task.data) {
    return (
      <DetailFallback
        page="taskDetail"
        loading={task.isLoading}
        notFound={t('tasks:detail.notFound')}
        backTo="/tasks"
        backLabel={t('tasks:detail.backToList')}
      />
    );
  }
  const d = task.data;
  const running = ACTIVE_STATUSES.includes(d.status);

  return (
    <div className="app-page task-detail-page" data-page="taskDetail" data-task-id={d._id}>
      <TourFor name="task-detail" />
      <div className="task-detail-header">
        <Button
          type="text"
          icon={<ArrowLeftOutlined />}
          onClick={() => navigate('/tasks')}
          data-tour="task-detail-back"
          aria-label={t('tasks:detail.backToList')}
        />
        <Typography.Title level={4} className="app-page-title" data-tour="task-detail-title">
          {d.spider?.display_name || d.spider_name || t('route:taskDetail')}
        </Typography.Title>
        <TaskStatusTag status={d.status} />
        <EndReasonTag task={d} />
        <Typography.Text type="secondary" className="mono" data-tour="task-detail-id">
          {d._id}
        </Typography.Text>
        <Space className="task-detail-actions" wrap>
          {running && (
            <Button danger icon={<StopOutlined />} onClick={() => actions.cancel([d._id])} data-testid="task-cancel">
              {t('tasks:cancel')}
            </Button>
          )}
          <Button
            icon={<RedoOutlined />}
            onClick={() => actions.restart([d._id])}
            data-testid="task-restart"
            data-tour="task-detail-restart"
          >
            {t('tasks:restart')}
          </Button>
          <Button
            danger
            type="text"
            icon={<DeleteOutlined />}
            onClick={() => actions.remove([d._id])}
            data-testid="task-delete"
            data-tour="task-detail-delete"
          >
            {t('tasks:delete')}
          </Button>
        </Space>
      </div>
      <Card styles={{ body: { paddingTop: 4 } }}>
        <Tabs
          activeKey={tab}
          onChange={selectTab}
          className="task-detail-tabs"
          items={[
            {
              key: 'overview',
              label: (
                <span data-testid="tab-overview" data-tour="task-detail-tab-overview">
                  {t('tasks:detail.tabs.overview')}
                </span>
              ),
              children: <OverviewView task={d} />,
            },
            {
              key: 'log',
              label: (
                <span data-testid="tab-log" data-tour="task-detail-tab-log">
                  {t('tasks:detail.tabs.log')}
                </span>
              ),
              children: <LogView task={d} live={live} active={active && tab === 'log'} />,
            },
            {
              key: 'results',
              label: (
                <span data-testid="tab-results" data-tour="task-detail-tab-results">
                  {t('tasks:detail.tabs.results')}
                </span>
              ),
              children: <ResultsView task={d} active={active && tab === 'results'} />,
            },
            ...(d.spider?.is_scrapy
              ? [ScrapyStatsTab({ taskId: d._id, active: active && tab === 'stats', running })]
              : []),
          ]}
        />
      </Card>
    </div>
  );
}
