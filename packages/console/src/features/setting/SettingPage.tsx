// Placeholder screen: the spec's tabs with empty panels until the feature lands (replace this whole file).
import { Card, Empty, Tabs, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

const TABS = ['general', 'notifications', 'globalVariable', 'database', 'password'] as const;

export default function SettingPage() {
  const { t } = useTranslation(['route', 'placeholder']);
  return (
    <div className="app-page" data-page="setting">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:setting')}
        </Typography.Title>
      </div>
      <Card>
        <Tabs
          items={TABS.map((tab) => ({
            key: tab,
            label: t(`placeholder:setting.tabs.${tab}`),
            children: <Empty description={t('placeholder:tabNotAvailable', { tab: t(`placeholder:setting.tabs.${tab}`) })} />,
          }))}
        />
      </Card>
    </div>
  );
}
