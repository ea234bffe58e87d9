// Spider detail "Analytics" tab (GET /spiders/{id}/stats):
// overview cards over all of the spider's tasks and per-day charts for a chosen window, charts loaded lazily.
import { Suspense, lazy, useState, type ReactNode } from 'react';
import { Alert, Card, Col, Empty, Row, Segmented, Skeleton, Space, Statistic, Tag, Typography } from 'antd';
import { CheckCircleOutlined, ClockCircleOutlined, DatabaseOutlined, UnorderedListOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { SPIDER_STATS_DEFAULT_DAYS, type SpiderStatsOverview } from '@crawldeck/shared';
import { useSpiderStats } from '../spiderStatsApi.ts';
import { STATUS_COLORS, formatDuration, formatTs } from '../../tasks/format.ts';
import type { SpiderTabProps } from './types.ts';
import ScrapyRunsCard from './ScrapyRunsCard.tsx';

const TasksChart = lazy(() => import('./AnalyticsCharts.tsx').then((m) => ({ default: m.TasksChart })));
const ResultsChart = lazy(() => import('./AnalyticsCharts.tsx').then((m) => ({ default: m.ResultsChart })));
const DurationChart = lazy(() => import('./AnalyticsCharts.tsx').then((m) => ({ default: m.DurationChart })));

const WINDOWS = [7, SPIDER_STATS_DEFAULT_DAYS, 90, 365];
const STATUSES = ['finished', 'error', 'cancelled', 'abnormal', 'running', 'pending'] as const;

/** "+08:00" style offset of the browser, as sent in tz_offset. */
function browserOffset(): string {
  const min = -new Date().getTimezoneOffset();
  const abs = Math.abs(min);
  return `${min < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export default function AnalyticsTab({ spider, active }: SpiderTabProps) {
  const { t } = useTranslation('spiderStats');
  const [days, setDays] = useState(SPIDER_STATS_DEFAULT_DAYS);
  const stats = useSpiderStats(spider._id, days, active);
  const d = stats.data;
  const o: SpiderStatsOverview | undefined = d?.overview;
  const ended = o ? o.finished + o.error + o.cancelled + o.abnormal : 0;
  const loading = stats.isLoading;
  const chart = (node: ReactNode) => (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
      {d ? node : <Skeleton active paragraph={{ rows: 6 }} />}
    </Suspense>
  );

  if (stats.isError && !d)
    return <Alert type="error" showIcon message={t('loadFailed')} data-testid="spider-stats-error" />;

  return (
    <div data-testid="spider-stats">
      <Row gutter={[16, 16]}>
        <Col xs={24} sm={12} xl={6}>
          <Card data-metric="tasks">
            <Statistic
              title={t('cards.tasks')}
              value={o?.tasks ?? 0}
              loading={loading}
              prefix={<UnorderedListOutlined style={{ color: '#1677ff', marginRight: 4 }} />}
              valueStyle={{ fontWeight: 600 }}
            />
            <Space size={[4, 4]} wrap style={{ marginTop: 8 }}>
              {STATUSES.filter((s) => (o?.[s] ?? 0) > 0).map((s) => (
                <Tag key={s} color={STATUS_COLORS[s]} data-status={s}>
                  {t(`statuses.${s}`)} {o?.[s]}
                </Tag>
              ))}
            </Space>
          </Card>
        </Col>
        <Col xs={24} sm={12} xl={6}>
          <Card data-metric="success-rate">
            <Statistic
              title={t('cards.successRate')}
              value={o && ended ? o.success_rate * 100 : '-'}
              precision={o && ended ? 1 : undefined}
              suffix={o && ended ? '%' : undefined}
              loading={loading}
              prefix={<CheckCircleOutlined style={{ color: '#52c41a', marginRight: 4 }} />}
              valueStyle={{ fontWeight: 600 }}
            />
            <Typography.Text type="secondary" style={{ display: 'block', marginTop: 8 }}>
              {t('successHint', { finished: o?.finished ?? 0, ended })}
            </Typography.Text>
          </Card>
        </Col>
        <Col xs={24} sm={12} xl={6}>
          <Card data-metric="avg-duration">
            <Statistic
              title={t('cards.avgDuration')}
              value={o && o.avg_duration_ms > 0 ? formatDuration(o.avg_duration_ms) : '-'}
              loading={loading}
              prefix={<ClockCircleOutlined style={{ color: '#fa8c16', marginRight: 4 }} />}
              valueStyle={{ fontWeight: 600 }}
            />
            <Typography.Text type="secondary" style={{ display: 'block', marginTop: 8 }}>
              {o?.last_run_ts ? t('lastRun', { time: formatTs(o.last_run_ts) }) : t('neverRun')}
            </Typography.Text>
          </Card>
        </Col>
        <Col xs={24} sm={12} xl={6}>
          <Card data-metric="results">
            <Statistic
              title={t('cards.results')}
              value={o?.results ?? 0}
              loading={loading}
              prefix={<DatabaseOutlined style={{ color: '#722ed1', marginRight: 4 }} />}
              valueStyle={{ fontWeight: 600 }}
            />
          </Card>
        </Col>

        <Col span={24}>
          <Space wrap style={{ justifyContent: 'space-between', width: '100%' }}>
            <Space>
              <Typography.Text>{t('window')}</Typography.Text>
              <Segmented<number>
                data-testid="spider-stats-days"
                value={days}
                onChange={setDays}
                options={WINDOWS.map((n) => ({ value: n, label: t('days', { count: n }) }))}
              />
            </Space>
            <Typography.Text type="secondary">{t('timezone', { offset: browserOffset() })}</Typography.Text>
          </Space>
        </Col>

        {o && o.tasks === 0 ? (
          <Col span={24}>
            <Card>
              <Empty description={t('noTasks')} />
            </Card>
          </Col>
        ) : (
          <>
            <Col xs={24} xl={12}>
              <Card title={t('charts.tasks')} data-chart="tasks">
                {chart(
                  d && <TasksChart daily={d.daily} labels={{ tasks: t('series.tasks'), errors: t('series.errors') }} />,
                )}
              </Card>
            </Col>
            <Col xs={24} xl={12}>
              <Card title={t('charts.results')} data-chart="results">
                {chart(d && <ResultsChart daily={d.daily} label={t('series.results')} />)}
              </Card>
            </Col>
            <Col span={24}>
              <Card title={t('charts.duration')} data-chart="duration">
                {chart(d && <DurationChart daily={d.daily} label={t('series.duration')} />)}
              </Card>
            </Col>
            {spider.is_scrapy && <ScrapyRunsCard spiderId={spider._id} active={active} />}
          </>
        )}
      </Row>
    </div>
  );
}
