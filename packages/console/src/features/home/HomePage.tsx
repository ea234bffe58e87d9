// Placeholder screen: an honest empty state until the feature lands (replace this whole file).
import { Card, Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export default function HomePage() {
  const { t } = useTranslation(['route', 'placeholder']);
  return (
    <div className="app-page" data-page="home">
      <Typography.Title level={4} className="app-page-title">
        {t('route:home')}
      </Typography.Title>
      <Card>
        <Empty description={t('placeholder:home.text')} />
      </Card>
    </div>
  );
}
