// Placeholder screen: an honest empty state until the feature lands (replace this whole file).
import { Card, Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export default function DisclaimerPage() {
  const { t } = useTranslation(['route', 'placeholder']);
  return (
    <div className="app-page" data-page="disclaimer">
      <Typography.Title level={4} className="app-page-title">
        {t('route:disclaimer')}
      </Typography.Title>
      <Card>
        <Empty description={t('placeholder:disclaimer.text')} />
      </Card>
    </div>
  );
}
