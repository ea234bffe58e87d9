/** The Stats tab of a Scrapy task: its label and its view, loaded only when the tab is opened. */
import { Suspense, lazy } from 'react';
import { Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';

const ScrapyStatsView = lazy(() => import('./ScrapyStatsView.tsx'));

function StatsTabLabel() {
  const { t } = useTranslation('scrapyStats');
  return <span data-testid="tab-stats">{t('tab')}</span>;
}

export function ScrapyStatsTab({ taskId, active, running }: { taskId: string; active: boolean; running: boolean }) {
  return {
    key: 'stats',
    label: <StatsTabLabel />,
    children: (
      <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
        <ScrapyStatsView taskId={taskId} active={active} running={running} />
      </Suspense>
    ),
  };
}
