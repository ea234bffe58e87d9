/**
 * Task "Stats" tab of a Scrapy task: what the spider's log says about the run as it streams — pages and items per
 * minute, responses by HTTP status, log records by level — and, once Scrapy closes the spider, its final stats
 * (finish reason, elapsed time, peak memory, every entry of the dump).
 */
import { Suspense, lazy, type ReactNode } from 'react';
import { Alert, Card, Col, Descriptions, Empty, Row, Skeleton, Statistic, Table, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { TaskScrapyStats } from '@crawldeck/shared';
import { formatDuration, formatTs } from '../format.ts';
import { useTaskScrapyStats } from './scrapyStatsApi.ts';

const RateChart = lazy(() => import('./ScrapyStatsCharts.tsx').then((m) => ({ default: m.RateChart })));
const CountsChart = lazy(() => import('./ScrapyStatsCharts.tsx').then((m) => ({ default: m.CountsChart })));

function formatBytes(n: number | null): string {
  if (n == null) return '-';
  return n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(2)} GiB` : `${(n / (1 << 20)).toFixed(1)} MiB`;
}

function Summary({ s }: { s: TaskScrapyStats }) {
  const { t } = useTranslation('scrapyStats');
  const f = s.final;
  const card = (key: string, title: string, value: ReactNode) => (
    <Col xs={12} md={8} xl={4} key={key}>
      <Card size="small" data-metric={key}>
        <Statistic title={title} value={value as string | number} valueStyle={{ fontWeight: 600 }} />
      </Card>
    </Col>
  );
  return (
    <Row gutter={[12, 12]}>
      {card('pages', t('cards.pages'), s.pages)}
      {card('items', t('cards.items'), s.items)}
      {card('errors', t('cards.errors'), (s.level_counts.ERROR ?? 0) + (s.level_counts.CRITICAL ?? 0))}
      {card('finish-reason', t('cards.finishReason'), f?.finish_reason ?? t('running'))}
      {card(
        'elapsed',
        t('cards.elapsed'),
        f?.elapsed_time_seconds != null ? formatDuration(f.elapsed_time_seconds * 1000) : '-',
      )}
      {card('memory', t('cards.memory'), formatBytes(f?.memusage_max ?? null))}
    </Row>
  );
}

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

function DumpTable({ entries }: { entries: Record<string, number | string> }) {
  const { t } = useTranslation('scrapyStats');
  const rows = Object.entries(entries)
    .sort(([a], [b]) => a.localeCompare(b))
    // Start and finish times come as ISO times in UTC: shown as the console shows every time.
    .map(([key, value]) => ({ key, value: ISO_TIME.test(String(value)) ? formatTs(String(value)) : String(value) }));
  return (
    <Table
      size="small"
      data-testid="scrapy-stats-dump"
      pagination={false}
      rowKey="key"
      dataSource={rows}
      columns={[
        { title: t('dump.key'), dataIndex: 'key', render: (v: string) => <span className="mono">{v}</span> },
        { title: t('dump.value'), dataIndex: 'value', render: (v: string) => <span className="mono">{v}</span> },
      ]}
    />
  );
}

export default function ScrapyStatsView({
  taskId,
  active,
  running,
}: {
  taskId: string;
  active: boolean;
  running: boolean;
}) {
  const { t } = useTranslation('scrapyStats');
  const q = useTaskScrapyStats(taskId, active, running);
  const s = q.data;
  const chart = (node: ReactNode) => <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>{node}</Suspense>;

  if (q.isError && !s) return <Alert type="error" showIcon message={t('loadFailed')} />;
  if (!s) return <Skeleton active paragraph={{ rows: 8 }} />;
  if (!s.is_scrapy) return <Empty description={t('notScrapy')} data-testid="scrapy-stats-none" />;

  return (
    <div data-testid="scrapy-stats" data-finished={s.final ? 'true' : 'false'}>
      <Summary s={s} />
      <Row gutter={[16, 16]} style={{ marginTop: 16 }}>
        <Col span={24}>
          <Card size="small" title={t('charts.rate')} data-chart="rate">
            {s.samples.length ? (
              chart(
                <RateChart
                  samples={s.samples}
                  labels={{ pages: t('series.pagesPerMin'), items: t('series.itemsPerMin'), total: t('series.items') }}
                />,
              )
            ) : (
              <Empty description={t('noSamples')} />
            )}
          </Card>
        </Col>
        <Col xs={24} xl={12}>
          <Card size="small" title={t('charts.statuses')} data-chart="statuses">
            {Object.keys(s.status_counts).length ? (
              chart(<CountsChart counts={s.status_counts} label={t('series.responses')} color="#1677ff" />)
            ) : (
              <Empty />
            )}
          </Card>
        </Col>
        <Col xs={24} xl={12}>
          <Card size="small" title={t('charts.levels')} data-chart="levels">
            {Object.keys(s.level_counts).length ? (
              chart(<CountsChart counts={s.level_counts} label={t('series.records')} color="#fa8c16" />)
            ) : (
              <Empty />
            )}
          </Card>
        </Col>
        {s.final && (
          <Col span={24}>
            <Card
              size="small"
              title={t('dump.title')}
              extra={
                <Tag color={s.final.finish_reason === 'finished' ? 'success' : 'warning'}>
                  {s.final.finish_reason ?? '-'}
                </Tag>
              }
            >
              <Descriptions size="small" column={{ xs: 1, md: 3 }} style={{ marginBottom: 12 }}>
                <Descriptions.Item label={t('dump.responses')}>
                  {s.final.response_received_count ?? '-'}
                </Descriptions.Item>
                <Descriptions.Item label={t('dump.items')}>{s.final.item_scraped_count ?? '-'}</Descriptions.Item>
                <Descriptions.Item label={t('dump.lines')}>{s.parsed_lines}</Descriptions.Item>
              </Descriptions>
              <DumpTable entries={s.final.entries} />
            </Card>
          </Col>
        )}
      </Row>
    </div>
  );
}
