// Placeholder screen: an honest empty state until the feature lands (replace this whole file).
import { Card, Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export default function UserListPage() {
  const { t } = useTranslation(['route', 'placeholder']);
  return (
    <div className="app-page" data-page="users">
      <Typography.Title level={4} className="app-page-title">
        {t('route:users')}
      </Typography.Title>
      <Card>
        <Empty description={t('placeholder:users.text')} />
      </Card>
    </div>
  );
}
