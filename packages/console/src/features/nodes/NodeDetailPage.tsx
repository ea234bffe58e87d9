/**
 * /nodes/{id}: Overview (information + edit form, and for administrators the node's own key), Installation (executables found on the node), Monitor (CPU,
 * memory, disk over time), Network (graph of all nodes, this one outlined) and the node's tasks.
 */
import { useUrlTab } from '../../app/useUrlTab.ts';
import { DetailFallback } from '../../app/DetailFallback.tsx';
import { Button, Card, Descriptions, Space, Tabs, Typography } from 'antd';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useUserStore } from '../../app/stores/user.ts';
import { useTaskEvents } from '../tasks/api.ts';
import { formatTs } from '../tasks/format.ts';
import OwnerTaskTable from '../tasks/components/OwnerTaskTable.tsx';
import { useNode, useNodes } from './api.ts';
import NodeStatusTag, { NodeTypeTag } from './components/NodeStatusTag.tsx';
import NodeForm from './components/NodeForm.tsx';
import InstallationPanel from './components/InstallationPanel.tsx';
import MonitorCharts from './components/MonitorCharts.tsx';
import NetworkGraph from './components/NetworkGraph.tsx';
import '../tasks/tasks.css';
import './nodes.css';
import TourFor from '../tours/TourFor.tsx';
import SandboxTag from './components/SandboxTag.tsx';
import NodeKeyCard from './components/NodeKeyCard.tsx';

const TABS = ['overview', 'installation', 'monitor', 'network', 'tasks'] as const;

export default function NodeDetailPage() {
  const { t } = useTranslation(['nodes', 'route']);
  const { id = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const active = location.pathname === `/nodes/${id}`;
  const isAdmin = useUserStore((s) => s.role) === 'admin';
  const node = useNode(id, active);
  const [tab, selectTab] = useUrlTab(TABS, active);
  const all = useNodes(active && tab === 'network');
  useTaskEvents(active);

  if (!node.data) {
    return (
      <DetailFallback
        page="nodeDetail"
        loading={node.isLoading}
        notFound={t('nodes:detail.notFound')}
        backTo="/nodes"
        backLabel={t('nodes:detail.backToList')}
      />
    );
  }
  const n = node.data;
  const si = n.systemInfo;

  return (
    <div className="app-page node-detail-page" data-page="nodeDetail">
      <TourFor name="node-detail" />
      <div className="node-detail-header">
        <Button
          type="text"
          icon={<ArrowLeftOutlined />}
          onClick={() => navigate('/nodes')}
          aria-label={t('nodes:detail.backToList')}
        />
        <Typography.Title level={4} className="app-page-title" data-testid="node-title" data-tour="node-detail-title">
          {n.name}
        </Typography.Title>
        <Space size={4}>
          <NodeTypeTag type={n.type} />
          <NodeStatusTag status={n.status} />
        </Space>
      </div>
      <Card styles={{ body: { paddingTop: 4 } }}>
        <Tabs
          activeKey={tab}
          onChange={selectTab}
          className="node-detail-tabs"
          items={[
            {
              key: 'overview',
              label: (
                <span data-testid="tab-overview" data-tour="node-detail-tab-overview">
                  {t('nodes:detail.tabs.overview')}
                </span>
              ),
              children: (
                <div className="node-overview">
                  <Descriptions bordered size="small" column={1} data-testid="node-overview">
                    <Descriptions.Item label={t('nodes:fields.id')}>
                      <Typography.Text copyable className="mono">
                        {n._id}
                      </Typography.Text>
                    </Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.type')}>
                      <NodeTypeTag type={n.type} />
                    </Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.status')}>
                      <NodeStatusTag status={n.status} />
                    </Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.ip')}>{n.ip || '-'}</Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.hostname')}>{si?.hostname || '-'}</Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.os')}>
                      {si ? `${si.os} / ${si.arch}` : '-'}
                    </Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.cpus')}>{si?.num_cpu ?? '-'}</Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.sandbox')}>
                      <SandboxTag sandbox={si?.sandbox} detail />
                    </Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.running')}>
                      {n.running} / {n.max_runners}
                    </Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.lastSeen')}>{formatTs(n.last_seen_ts)}</Descriptions.Item>
                    <Descriptions.Item label={t('nodes:fields.createTs')}>{formatTs(n.create_ts)}</Descriptions.Item>
                  </Descriptions>
                  <div>
                    {!isAdmin && <Typography.Paragraph type="secondary">{t('nodes:adminOnly')}</Typography.Paragraph>}
                    <NodeForm node={n} readOnly={!isAdmin} />
                    {isAdmin && <NodeKeyCard nodeId={n._id} />}
                  </div>
                </div>
              ),
            },
            {
              key: 'installation',
              label: (
                <span data-testid="tab-installation" data-tour="node-detail-tab-installation">
                  {t('nodes:detail.tabs.installation')}
                </span>
              ),
              children: <InstallationPanel node={n} />,
            },
            {
              key: 'monitor',
              label: (
                <span data-testid="tab-monitor" data-tour="node-detail-tab-monitor">
                  {t('nodes:detail.tabs.monitor')}
                </span>
              ),
              children: <MonitorCharts nodeId={n._id} active={active && tab === 'monitor'} />,
            },
            {
              key: 'network',
              label: (
                <span data-testid="tab-network" data-tour="node-detail-tab-network">
                  {t('nodes:detail.tabs.network')}
                </span>
              ),
              children: <NetworkGraph nodes={all.data ?? [n]} highlight={n._id} />,
            },
            {
              key: 'tasks',
              label: <span data-testid="tab-tasks">{t('nodes:detail.tabs.tasks')}</span>,
              children: (
                <OwnerTaskTable kind="node" id={n._id} active={active && tab === 'tasks'} testId="node-task-table" />
              ),
            },
          ]}
        />
      </Card>
    </div>
  );
}
