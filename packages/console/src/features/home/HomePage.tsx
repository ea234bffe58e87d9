/** /home dashboard: numbered cards and charts from the single GET /stats/home call. */
import { Suspense, lazy } from 'react';
import { Card, Col, Empty, Row, Skeleton, Statistic, Typography } from 'antd';
import { ApartmentOutlined, BugOutlined, CloudUploadOutlined, UnorderedListOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useHomeStats } from './api.ts';

const DailyChart = lazy(() => import('./components/HomeCharts.tsx').then((m) => ({ default: m.DailyChart })));
const StatusChart = lazy(() => import('./components/HomeCharts.tsx').then((m) => ({ default: m.StatusChart })));

const CARDS = [
  { key: 'tasks', field: 'tasks', icon: UnorderedListOutlined, color: '#1677ff' },
  { key: 'nodes', field: 'nodes_active', icon: ApartmentOutlined, color: '#52c41a' },
  { key: 'deploys', field: 'deploys', icon: CloudUploadOutlined, color: '#fa8c16' },
  { key: 'spiders', field: 'spiders', icon: BugOutlined, color: '#722ed1' },
] as const;

export default function HomePage() {
  const { t, i18n } = useTranslation(['home', 'route']);
  const stats = useHomeStats();
  const d = stats.data;
  const statusLabel = (s: string) =>
    i18n.exists(`home:statuses.${s.toLowerCase()}`) ? t(`statuses.${s.toLowerCase()}`) : s;

  return (
    <div className="app-page" data-page="home">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:home')}
        </Typography.Title>
      </div>
      <Row gutter={[16, 16]}>
        {CARDS.map(({ key, field, icon: Icon, color }) => (
          <Col key={key} xs={24} sm={12} lg={6}>
            <Card data-metric={key}>
              <Statistic
                title={t(`cards.${key}`)}
                value={d ? d[field] : 0}
                loading={stats.isLoading}
                prefix={<Icon style={{ color, marginRight: 4 }} />}
                valueStyle={{ fontWeight: 600 }}
              />
            </Card>
          </Col>
        ))}
        <Col xs={24} xl={16}>
          <Card title={t('daily')}>
            <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
              {d ? <DailyChart daily={d.daily} label={t('tasks')} /> : <Skeleton active paragraph={{ rows: 6 }} />}
            </Suspense>
          </Card>
        </Col>
        <Col xs={24} xl={8}>
          <Card title={t('status')}>
            {d && d.status.length === 0 ? (
              <Empty style={{ height: 296, paddingTop: 80 }} description={t('noTasks')} />
            ) : (
              <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
                {d ? (
                  <StatusChart status={d.status} labelOf={statusLabel} />
                ) : (
                  <Skeleton active paragraph={{ rows: 6 }} />
                )}
              </Suspense>
            )}
          </Card>
        </Col>
      </Row>
    </div>
  );
}
