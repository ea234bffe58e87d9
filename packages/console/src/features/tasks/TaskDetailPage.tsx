// Placeholder screen: the spec's tabs with empty panels until the feature lands (replace this whole file).
import { Card, Empty, Tabs, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';

const TABS = ['overview', 'log', 'results'] as const;

export default function TaskDetailPage() {
  const { t } = useTranslation(['route', 'placeholder']);
  const { id } = useParams();
  return (
    <div className="app-page" data-page="taskDetail">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:taskDetail')}
        </Typography.Title>
        <Typography.Text type="secondary" className="app-page-subtitle">
          {t('placeholder:id')}: {id}
        </Typography.Text>
      </div>
      <Card>
        <Tabs
          items={TABS.map((tab) => ({
            key: tab,
            label: t(`placeholder:taskDetail.tabs.${tab}`),
            children: <Empty description={t('placeholder:tabNotAvailable', { tab: t(`placeholder:taskDetail.tabs.${tab}`) })} />,
          }))}
        />
      </Card>
    </div>
  );
}
