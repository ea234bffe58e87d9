/**
 * Spider detail (/spiders/{id}): the nine tabs, the selected one kept in the URL (`?tab=`); the view's tab in the
 * tab strip is titled with the spider's name. Overview, Files and Environment live here; the other tabs are one file each under tabs/ (other features).
 */
import { lazy, Suspense, type ComponentType } from 'react';
import { useUrlTab } from '../../app/useUrlTab.ts';
import { useViewLabel } from '../../app/useViewLabel.ts';
import { DetailFallback } from '../../app/DetailFallback.tsx';
import { Button, Card, Space, Spin, Tabs, Tag, Typography } from 'antd';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useProjects } from '../projects/api.ts';
import { useSpider } from './api.ts';
import { SPIDER_TABS, type SpiderTab } from './spiderTabs.ts';
import OverviewTab from './tabs/OverviewTab.tsx';
import EnvironmentTab from './tabs/EnvironmentTab.tsx';
import AnalyticsTab from './tabs/AnalyticsTab.tsx';
import RulesTab from './tabs/RulesTab.tsx';
import ConfigTab from './tabs/ConfigTab.tsx';
import DeploysTab from './tabs/DeploysTab.tsx';
import TasksTab from './tabs/TasksTab.tsx';
import SchedulesTab from './tabs/SchedulesTab.tsx';
import type { SpiderTabProps } from './tabs/types.ts';
import './spiders.css';
import TourFor from '../tours/TourFor.tsx';
import { RunSpiderButton } from '../tasks/components/RunDialog.tsx';

// The Files tab carries the CodeMirror editor: loaded only when first opened.
const FilesTab = lazy(() => import('./tabs/FilesTab.tsx'));

const TAB_COMPONENTS: Record<SpiderTab, ComponentType<SpiderTabProps>> = {
  overview: OverviewTab,
  files: FilesTab,
  environment: EnvironmentTab,
  analytics: AnalyticsTab,
  rules: RulesTab,
  config: ConfigTab,
  deploys: DeploysTab,
  tasks: TasksTab,
  schedules: SchedulesTab,
};

export default function SpiderDetailPage() {
  const { t } = useTranslation(['spiders', 'route']);
  const { id = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const spider = useSpider(id);
  const projects = useProjects();
  // Kept alive while hidden: follow the URL only while this view is the current one.
  const active = location.pathname === `/spiders/${id}`;
  const [tab, selectTab] = useUrlTab(SPIDER_TABS, active);
  useViewLabel(`/spiders/${id}`, spider.data ? spider.data.display_name || spider.data.name : undefined);

  if (!spider.data) {
    return (
      <DetailFallback
        page="spiderDetail"
        loading={spider.isLoading}
        notFound={t('spiders:notFound')}
        backTo="/spiders"
        backLabel={t('spiders:backToList')}
      />
    );
  }

  const s = spider.data;
  const projectName = s.project_id ? projects.data?.find((p) => p._id === s.project_id)?.name : undefined;

  return (
    <div className="app-page spider-detail-page" data-page="spiderDetail">
      <TourFor name="spider-detail" />
      <div className="spider-detail-header">
        <Button
          type="text"
          icon={<ArrowLeftOutlined />}
          onClick={() => navigate('/spiders')}
          aria-label={t('spiders:backToList')}
        />
        <Typography.Title
          level={4}
          className="app-page-title spider-detail-title"
          data-testid="spider-title"
          data-tour="spider-detail-title"
        >
          {s.display_name || s.name}
        </Typography.Title>
        <Space size={4} wrap>
          {s.display_name && s.display_name !== s.name && <Tag className="mono-tag">{s.name}</Tag>}
          <Tag color={s.type === 'configurable' ? 'purple' : 'geekblue'}>{t(`spiders:types.${s.type}`)}</Tag>
          {projectName && <Tag color="blue">{projectName}</Tag>}
          {s.is_scrapy && <Tag color="green">Scrapy</Tag>}
          {s.git_url && <Tag color="orange">Git</Tag>}
        </Space>
        <RunSpiderButton spiders={[s]} type="primary" style={{ marginLeft: 'auto' }} />
      </div>
      <Card className="spider-detail-card" styles={{ body: { paddingTop: 4 } }}>
        <Tabs
          activeKey={tab}
          onChange={selectTab}
          className="spider-detail-tabs"
          items={SPIDER_TABS.map((key) => {
            const Comp = TAB_COMPONENTS[key];
            return {
              key,
              label: (
                <span data-testid={`tab-${key}`} data-tour={`spider-detail-tab-${key}`}>
                  {t(`spiders:tabs.${key}`)}
                </span>
              ),
              children: (
                <Suspense fallback={<Spin className="spider-tab-loading" />}>
                  <Comp spider={s} active={active && tab === key} />
                </Suspense>
              ),
            };
          })}
        />
      </Card>
    </div>
  );
}
