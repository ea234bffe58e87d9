// Placeholder screen: the spec's tabs with empty panels until the feature lands (replace this whole file).
import { Card, Empty, Tabs, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';

const TABS = ['overview', 'installation', 'monitor', 'network'] as const;

export default function NodeDetailPage() {
  const { t } = useTranslation(['route', 'placeholder']);
  const { id } = useParams();
  return (
    <div className="app-page" data-page="nodeDetail">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:nodeDetail')}
        </Typography.Title>
        <Typography.Text type="secondary" className="app-page-subtitle">
          {t('placeholder:id')}: {id}
        </Typography.Text>
      </div>
      <Card>
        <Tabs
          items={TABS.map((tab) => ({
            key: tab,
            label: t(`placeholder:nodeDetail.tabs.${tab}`),
            children: <Empty description={t('placeholder:tabNotAvailable', { tab: t(`placeholder:nodeDetail.tabs.${tab}`) })} />,
          }))}
        />
      </Card>
    </div>
  );
}
