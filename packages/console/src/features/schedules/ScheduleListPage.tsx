// Placeholder screen: an honest empty state until the feature lands (replace this whole file).
import { Card, Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export default function ScheduleListPage() {
  const { t } = useTranslation(['route', 'placeholder']);
  return (
    <div className="app-page" data-page="schedules">
      <Typography.Title level={4} className="app-page-title">
        {t('route:schedules')}
      </Typography.Title>
      <Card>
        <Empty description={t('placeholder:schedules.text')} />
      </Card>
    </div>
  );
}
