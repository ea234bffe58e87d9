// Placeholder screen: an honest empty state until the feature lands (replace this whole file).
import { Card, Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export default function TaskListPage() {
  const { t } = useTranslation(['route', 'placeholder']);
  return (
    <div className="app-page" data-page="tasks">
      <Typography.Title level={4} className="app-page-title">
        {t('route:tasks')}
      </Typography.Title>
      <Card>
        <Empty description={t('placeholder:tasks.text')} />
      </Card>
    </div>
  );
}
