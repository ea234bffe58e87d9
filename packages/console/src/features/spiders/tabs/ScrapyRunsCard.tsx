/** The spider Analytics tab's Scrapy section: items, pages and error lines of the latest runs, read from their logs. */
import { Suspense, lazy } from 'react';
import { Card, Col, Empty, Skeleton, Table } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { SpiderScrapyRun } from '@crawldeck/shared';
import { useSpiderScrapyRuns } from '../../tasks/components/scrapyStatsApi.ts';
import { formatDuration, formatTs } from '../../tasks/format.ts';
import TaskStatusTag from '../../tasks/components/TaskStatusTag.tsx';

const RunsChart = lazy(() =>
  import('../../tasks/components/ScrapyStatsCharts.tsx').then((m) => ({ default: m.RunsChart })),
);

export default function ScrapyRunsCard({ spiderId, active }: { spiderId: string; active: boolean }) {
  const { t } = useTranslation('scrapyStats');
  const runs = useSpiderScrapyRuns(spiderId, active);
  const rows = runs.data ?? [];
  if (!runs.data) return <Skeleton active paragraph={{ rows: 4 }} />;
  return (
    <>
      <Col span={24}>
        <Card title={t('runs.chart')} data-chart="scrapy-runs">
          {rows.length ? (
            <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
              <RunsChart
                runs={rows}
                labels={{ items: t('runs.items'), pages: t('runs.pages'), errors: t('runs.errors') }}
              />
            </Suspense>
          ) : (
            <Empty description={t('runs.none')} />
          )}
        </Card>
      </Col>
      <Col span={24}>
        <Card title={t('runs.title')}>
          <Table<SpiderScrapyRun>
            size="small"
            data-testid="scrapy-runs"
            rowKey="task_id"
            dataSource={rows}
            pagination={{ pageSize: 10 }}
            columns={[
              {
                title: t('runs.time'),
                dataIndex: 'create_ts',
                render: (v: string, r) => <Link to={`/tasks/${r.task_id}?tab=stats`}>{formatTs(v)}</Link>,
              },
              { title: t('runs.status'), dataIndex: 'status', render: (v: string) => <TaskStatusTag status={v} /> },
              { title: t('runs.items'), dataIndex: 'items', align: 'right' },
              { title: t('runs.pages'), dataIndex: 'pages', align: 'right' },
              { title: t('runs.errors'), dataIndex: 'errors', align: 'right' },
              { title: t('runs.finishReason'), dataIndex: 'finish_reason', render: (v: string | null) => v ?? '-' },
              {
                title: t('runs.elapsed'),
                dataIndex: 'elapsed_time_seconds',
                render: (v: number | null) => (v == null ? '-' : formatDuration(v * 1000)),
              },
            ]}
          />
        </Card>
      </Col>
    </>
  );
}
