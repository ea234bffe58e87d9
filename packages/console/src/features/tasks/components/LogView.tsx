/**
 * Task log: pages of 5000 lines, keyword search, error lines highlighted with a 'next error' jump
 * (GET /tasks/{id}/error-log), auto-scroll that follows the end (jumps to the last page when more pages exist),
 * and the live tail of a running task pushed by `GET /tasks/{id}/stream` (lines arrive through `live`).
 * While the task runs the view ends with an end marker and an empty line; when it has ended, with an end marker.
 */
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { Badge, Button, Input, Pagination, Space, Switch, Tag, Tooltip, Typography } from 'antd';
import { ArrowDownOutlined, WarningOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { LOG_PAGE_SIZE } from '@crawldeck/shared';
import { useTaskLog, type TaskDetail } from '../api.ts';
import { ACTIVE_STATUSES } from '../format.ts';
import { useLogErrors } from './useLogErrors.ts';

export interface LiveLine {
  line_no: number;
  msg: string;
  is_error: boolean;
}

function highlight(msg: string, keyword: string) {
  if (!keyword) return msg;
  const out: (string | JSX.Element)[] = [];
  const lower = msg.toLowerCase();
  const k = keyword.toLowerCase();
  let i = 0;
  for (let j = lower.indexOf(k); j >= 0; j = lower.indexOf(k, i)) {
    out.push(msg.slice(i, j), <mark key={j}>{msg.slice(j, j + k.length)}</mark>);
    i = j + k.length;
  }
  out.push(msg.slice(i));
  return out;
}

const Line = memo(function Line({ line, keyword, current }: { line: LiveLine; keyword: string; current: boolean }) {
  return (
    <div
      className={`log-line${line.is_error ? ' is-error' : ''}${current ? ' is-current' : ''}`}
      data-line={line.line_no}
      data-error={line.is_error ? '1' : undefined}
    >
      <span className="log-line-no">{line.line_no}</span>
      <span className="log-line-msg">{highlight(line.msg, keyword)}</span>
    </div>
  );
});

/** The end marker under the last page: the task still runs (an empty line follows) or it has ended. */
function LogEnd({ running }: { running: boolean }) {
  const { t } = useTranslation('tasks');
  return running ? (
    <>
      <div className="log-end" data-testid="log-end-marker" data-state="running">
        {t('log.endRunning')}
      </div>
      <div className="log-end-blank" />
    </>
  ) : (
    <div className="log-end" data-testid="log-end-marker" data-state="ended">
      {t('log.endFinished')}
    </div>
  );
}

export default function LogView({ task, live, active }: { task: TaskDetail; live: LiveLine[]; active: boolean }) {
  const { t } = useTranslation('tasks');
  const [keywordInput, setKeywordInput] = useState('');
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState(1);
  const [autoScroll, setAutoScroll] = useState(true);
  const [target, setTarget] = useState<number | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const running = ACTIVE_STATUSES.includes(task.status);

  const log = useTaskLog(task._id, page, keyword, active);
  const { errorLines, errorCount } = useLogErrors(task, live, active);

  // Base page from the server plus live lines that belong to this page (no keyword: lines are dense from 1).
  const { lines, total } = useMemo(() => {
    const base = log.isPlaceholderData ? [] : (log.data?.list ?? []);
    if (keyword) return { lines: base as LiveLine[], total: log.data?.total ?? 0 };
    const lastBase = base.length ? base[base.length - 1].line_no : (page - 1) * LOG_PAGE_SIZE;
    const extra = live.filter((l) => l.line_no > lastBase && l.line_no <= page * LOG_PAGE_SIZE);
    const lastLive = live.length ? live[live.length - 1].line_no : 0;
    return {
      lines: [...(base as LiveLine[]), ...extra],
      total: Math.max(log.data?.total ?? 0, task.log_count ?? 0, lastLive),
    };
  }, [log.data, log.isPlaceholderData, live, keyword, page, task.log_count]);
  const pages = Math.max(1, Math.ceil(total / LOG_PAGE_SIZE));

  // With auto-scroll on the user wants the newest lines: jump to the last page when more pages exist.
  useEffect(() => {
    if (active && autoScroll && pages > page) setPage(pages);
  }, [active, autoScroll, pages, page]);

  // Follow the end.
  useEffect(() => {
    if (active && autoScroll && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [active, autoScroll, lines.length, running]);

  // Error jump target: scroll it into view once its page is rendered.
  useEffect(() => {
    if (target == null || !box.current) return;
    const el = box.current.querySelector<HTMLElement>(`[data-line="${target}"]`);
    if (el) el.scrollIntoView({ block: 'center' });
  }, [target, lines]);

  const nextError = () => {
    if (!errorLines.length) return;
    const from = target ?? 0;
    const next = errorLines.find((n) => n > from) ?? errorLines[0];
    setAutoScroll(false);
    if (keyword) {
      setKeyword('');
      setKeywordInput('');
    }
    setPage(Math.ceil(next / LOG_PAGE_SIZE));
    setTarget(next);
  };

  return (
    <div className="log-panel" data-testid="log-panel">
      <div className="log-toolbar">
        <Space wrap size={8}>
          <Input.Search
            allowClear
            value={keywordInput}
            placeholder={t('log.search')}
            style={{ width: 260 }}
            onChange={(e) => {
              setKeywordInput(e.target.value);
              if (!e.target.value) {
                setKeyword('');
                setPage(1);
              }
            }}
            onSearch={(v) => {
              setKeyword(v.trim());
              setPage(1);
              setTarget(null);
              if (v.trim()) setAutoScroll(false);
            }}
            data-testid="log-search"
          />
          <Tooltip title={errorCount ? undefined : t('log.noErrors')}>
            <Button
              icon={<WarningOutlined />}
              danger={errorCount > 0}
              disabled={!errorLines.length}
              onClick={nextError}
              data-testid="log-next-error"
            >
              {t('log.nextError')}
            </Button>
          </Tooltip>
          <Tag color={errorCount ? 'red' : 'default'} className="log-error-count" bordered={false}>
            {t('log.errors', { count: errorCount })}
          </Tag>
        </Space>
        <Space wrap size={12}>
          {running && !keyword && <Badge status="processing" text={t('log.live')} />}
          <Space size={6}>
            <ArrowDownOutlined />
            <span>{t('log.autoScroll')}</span>
            <Switch
              size="small"
              checked={autoScroll}
              onChange={(v) => {
                setAutoScroll(v);
                if (v) setTarget(null);
              }}
              data-testid="log-autoscroll"
            />
          </Space>
        </Space>
      </div>
      <div
        className="log-view"
        ref={box}
        data-testid="log-view"
        onWheel={(e) => {
          if (e.deltaY < 0 && autoScroll) setAutoScroll(false);
        }}
      >
        {lines.length === 0 && !running && <div className="log-empty">{log.isLoading ? '…' : t('log.empty')}</div>}
        {lines.map((l) => (
          <Line key={l.line_no} line={l} keyword={keyword} current={l.line_no === target} />
        ))}
        {!keyword && page === pages && <LogEnd running={running} />}
      </div>
      <div className="log-footer">
        <Typography.Text type="secondary" data-testid="log-total">
          {!keyword
            ? t('log.lines', { count: total })
            : log.data?.partial
              ? t('log.matchesAtLeast', { count: total })
              : t('log.matches', { count: total })}
        </Typography.Text>
        <Pagination
          size="small"
          current={page}
          pageSize={LOG_PAGE_SIZE}
          total={total}
          showSizeChanger={false}
          hideOnSinglePage
          onChange={(p) => {
            setPage(p);
            if (p !== pages) setAutoScroll(false);
          }}
        />
      </div>
    </div>
  );
}
