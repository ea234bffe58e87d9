// Placeholder screen: an honest empty state until the feature lands (replace this whole file).
import { Card, Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export default function ProjectListPage() {
  const { t } = useTranslation(['route', 'placeholder']);
  return (
    <div className="app-page" data-page="projects">
      <Typography.Title level={4} className="app-page-title">
        {t('route:projects')}
      </Typography.Title>
      <Card>
        <Empty description={t('placeholder:projects.text')} />
      </Card>
    </div>
  );
}
