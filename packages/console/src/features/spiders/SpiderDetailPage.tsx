// Placeholder screen: the spec's tabs with empty panels until the feature lands (replace this whole file).
import { Card, Empty, Tabs, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';

const TABS = ['overview', 'files', 'environment', 'analytics', 'rules', 'config', 'deploys', 'tasks', 'schedules'] as const;

export default function SpiderDetailPage() {
  const { t } = useTranslation(['route', 'placeholder']);
  const { id } = useParams();
  return (
    <div className="app-page" data-page="spiderDetail">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:spiderDetail')}
        </Typography.Title>
        <Typography.Text type="secondary" className="app-page-subtitle">
          {t('placeholder:id')}: {id}
        </Typography.Text>
      </div>
      <Card>
        <Tabs
          items={TABS.map((tab) => ({
            key: tab,
            label: t(`placeholder:spiderDetail.tabs.${tab}`),
            children: <Empty description={t('placeholder:tabNotAvailable', { tab: t(`placeholder:spiderDetail.tabs.${tab}`) })} />,
          }))}
        />
      </Card>
    </div>
  );
}
