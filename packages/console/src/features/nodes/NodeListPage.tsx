/**
 * /nodes: the master and workers with type, status, address, system info, running tasks, enabled and last
 * heartbeat; 'How to add a node' for admins (nodes join by themselves, never added from the console); edit; delete offline
 * workers; a Network view (ECharts graph).
 */
import { useState } from 'react';
import { App, Button, Card, Form, Input, Modal, Segmented, Select, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import {
  ApartmentOutlined,
  AppstoreOutlined,
  DeleteOutlined,
  EditOutlined,
  EyeOutlined,
  ReloadOutlined,
  TableOutlined,
} from '@ant-design/icons';
import { Link, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { NodeEditBody, NodeListItem, NodeListQuery } from '@crawldeck/shared';
import { useUserStore } from '../../app/stores/user.ts';
import { useTaskEvents } from '../tasks/api.ts';
import { formatTs } from '../tasks/format.ts';
import { useDeleteNode, useNodePage, useNodes } from './api.ts';
import NodeStatusTag, { NodeTypeTag } from './components/NodeStatusTag.tsx';
import JoinPanel from './components/JoinPanel.tsx';
import NetworkGraph from './components/NetworkGraph.tsx';
import DependenciesView from './components/DependenciesView.tsx';
import SandboxTag from './components/SandboxTag.tsx';
import { NodeFormFields, useNodeForm, useSaveNode } from './components/NodeForm.tsx';
import './nodes.css';
import { dialogAction } from '../../app/dialogAction.ts';
import { WIDE_SCREEN_ONLY as WIDE } from '../../app/breakpoints.ts';

/** Rows per page of the node table; the master pages and filters the list. */
const DEFAULT_PAGE_SIZE = 20;
const STATUSES = ['online', 'offline', 'unavailable'] as const;

function EditModal({ node, onClose }: { node: NodeListItem | null; onClose(): void }) {
  const { t } = useTranslation(['nodes', 'common']);
  const form = useNodeForm(node);
  const { save, pending } = useSaveNode(node?._id ?? '');
  return (
    <Modal
      open={!!node}
      title={t('nodes:editTitle')}
      onCancel={onClose}
      okText={t('common:save')}
      cancelText={t('common:cancel')}
      confirmLoading={pending}
      className="node-edit-modal"
      forceRender
      onOk={dialogAction(async () => {
        const v = await form.validateFields();
        await save(v as NodeEditBody);
        onClose();
      })}
    >
      <Form form={form} layout="vertical">
        <NodeFormFields />
      </Form>
    </Modal>
  );
}

export default function NodeListPage() {
  const { t } = useTranslation(['nodes', 'route', 'common']);
  const { modal, message } = App.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const active = location.pathname === '/nodes';
  const isAdmin = useUserStore((s) => s.role) === 'admin';
  const [view, setView] = useState<'table' | 'network' | 'dependencies'>('table');
  const [query, setQuery] = useState<NodeListQuery>({ page_num: 1, page_size: DEFAULT_PAGE_SIZE });
  const page = useNodePage(query, active && view === 'table');
  // The network and dependency views show the whole fleet.
  const fleet = useNodes(active && view !== 'table');
  const nodes = view === 'table' ? page : fleet;
  const total = view === 'table' ? (page.data?.total ?? 0) : (fleet.data?.length ?? 0);
  const del = useDeleteNode();
  const [editing, setEditing] = useState<NodeListItem | null>(null);
  useTaskEvents(active);

  const confirmDelete = (n: NodeListItem) =>
    modal.confirm({
      title: t('nodes:deleteTitle'),
      content: t('nodes:deleteText', { name: n.name }),
      okText: t('common:confirm'),
      cancelText: t('common:cancel'),
      okButtonProps: { danger: true, className: 'confirm-delete' },
      onOk: dialogAction(async () => {
        await del.mutateAsync(n._id);
        void message.success(t('nodes:deleted'));
      }),
    });

  const columns: TableProps<NodeListItem>['columns'] = [
    {
      title: t('nodes:fields.name'),
      dataIndex: 'name',
      key: 'name',
      render: (name: string, n) => (
        <div className="node-name-cell">
          <Link to={`/nodes/${n._id}`} className="node-link" data-node-id={n._id}>
            {name}
          </Link>
          {n.description && <span className="node-desc">{n.description}</span>}
        </div>
      ),
    },
    {
      title: t('nodes:fields.type'),
      dataIndex: 'type',
      key: 'type',
      width: 100,
      render: (v: string) => <NodeTypeTag type={v} />,
    },
    {
      title: t('nodes:fields.status'),
      dataIndex: 'status',
      key: 'status',
      width: 100,
      render: (v: string) => <NodeStatusTag status={v} />,
    },
    {
      title: `${t('nodes:fields.ip')} / ${t('nodes:fields.hostname')}`,
      key: 'ip',
      width: 170,
      render: (_: unknown, n) => (
        <div className="node-addr">
          <span>{n.ip || '-'}</span>
          {n.systemInfo?.hostname && <span className="node-desc">{n.systemInfo.hostname}</span>}
        </div>
      ),
    },
    {
      title: t('nodes:fields.system'),
      key: 'system',
      width: 200,
      responsive: WIDE,
      render: (_: unknown, n) =>
        n.systemInfo ? (
          <Space size={4} wrap>
            <Tag bordered={false}>{n.systemInfo.os}</Tag>
            <Tag bordered={false}>{n.systemInfo.arch}</Tag>
            <Tag bordered={false}>
              {n.systemInfo.num_cpu} {t('nodes:fields.cpus')}
            </Tag>
            {n.systemInfo.sandbox && <SandboxTag sandbox={n.systemInfo.sandbox} />}
          </Space>
        ) : (
          '-'
        ),
    },
    {
      title: t('nodes:fields.running'),
      key: 'running',
      width: 90,
      align: 'right',
      render: (_: unknown, n) => (
        <span className="node-running">
          {n.running} / {n.max_runners}
        </span>
      ),
    },
    {
      title: t('nodes:fields.enabled'),
      dataIndex: 'enabled',
      key: 'enabled',
      width: 80,
      render: (v: boolean) => <Tag color={v ? 'blue' : 'default'}>{v ? t('nodes:yes') : t('nodes:no')}</Tag>,
    },
    {
      title: t('nodes:fields.lastSeen'),
      dataIndex: 'last_seen_ts',
      key: 'last_seen_ts',
      width: 170,
      render: (v: string | null) => <span className="node-last-seen">{formatTs(v)}</span>,
    },
    {
      title: t('nodes:actions'),
      key: 'actions',
      width: 110,
      render: (_: unknown, n) => {
        const deletable = n.type === 'worker' && n.status === 'offline';
        return (
          <Space size={0}>
            <Tooltip title={t('nodes:view')}>
              <Button
                type="text"
                size="small"
                icon={<EyeOutlined />}
                onClick={() => navigate(`/nodes/${n._id}`)}
                aria-label={t('nodes:view')}
              />
            </Tooltip>
            {isAdmin && (
              <Tooltip title={t('nodes:edit')}>
                <Button
                  type="text"
                  size="small"
                  icon={<EditOutlined />}
                  onClick={() => setEditing(n)}
                  aria-label={t('nodes:edit')}
                  className="node-edit"
                />
              </Tooltip>
            )}
            {isAdmin && (
              <Tooltip title={deletable ? t('nodes:delete') : t('nodes:deleteOnlyOffline')}>
                <Button
                  type="text"
                  size="small"
                  danger
                  icon={<DeleteOutlined />}
                  disabled={!deletable}
                  onClick={() => confirmDelete(n)}
                  aria-label={t('nodes:delete')}
                  className="node-delete"
                />
              </Tooltip>
            )}
          </Space>
        );
      },
    },
  ];

  return (
    <div className="app-page nodes-page" data-page="nodes">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:nodes')}
        </Typography.Title>
        <Typography.Text type="secondary" className="app-page-subtitle">
          {t('nodes:subtitle')}
        </Typography.Text>
      </div>
      {isAdmin && <JoinPanel />}
      <Card>
        <div className="nodes-toolbar">
          <Segmented
            value={view}
            onChange={(v) => setView(v as 'table' | 'network' | 'dependencies')}
            options={[
              { value: 'table', label: t('nodes:views.table'), icon: <TableOutlined /> },
              { value: 'network', label: t('nodes:views.network'), icon: <ApartmentOutlined /> },
              { value: 'dependencies', label: t('environments:dependencies.title'), icon: <AppstoreOutlined /> },
            ]}
            data-testid="nodes-view"
          />
          <Space>
            {view === 'table' && (
              <>
                <Input.Search
                  allowClear
                  placeholder={t('nodes:searchPlaceholder')}
                  onSearch={(keyword) => setQuery((q) => ({ ...q, page_num: 1, keyword: keyword.trim() || undefined }))}
                  maxLength={100}
                  style={{ width: 220 }}
                  data-testid="node-search"
                />
                <Select<NonNullable<NodeListQuery['status']>>
                  allowClear
                  placeholder={t('nodes:statusFilter')}
                  value={query.status}
                  onChange={(status) => setQuery((q) => ({ ...q, page_num: 1, status }))}
                  options={STATUSES.map((st) => ({ value: st, label: t(`nodes:status.${st}`) }))}
                  style={{ width: 140 }}
                  data-testid="node-status-filter"
                />
              </>
            )}
            <Typography.Text type="secondary">{t('nodes:total', { count: total })}</Typography.Text>
            <Tooltip title={t('nodes:refresh')}>
              <Button icon={<ReloadOutlined />} onClick={() => void nodes.refetch()} loading={nodes.isFetching} />
            </Tooltip>
          </Space>
        </div>
        {view === 'table' ? (
          <Table<NodeListItem>
            rowKey="_id"
            size="middle"
            columns={columns}
            dataSource={page.data?.rows ?? []}
            loading={page.isLoading || del.isPending}
            pagination={{
              current: query.page_num,
              pageSize: query.page_size,
              total,
              showSizeChanger: true,
              pageSizeOptions: [10, 20, 50, 100],
              hideOnSinglePage: total <= DEFAULT_PAGE_SIZE,
              onChange: (page_num, page_size) => setQuery((q) => ({ ...q, page_num, page_size })),
            }}
            scroll={{ x: 'max-content' }}
            data-testid="node-table"
          />
        ) : view === 'dependencies' ? (
          <DependenciesView nodes={fleet.data ?? []} />
        ) : (
          <>
            <Typography.Paragraph type="secondary">{t('nodes:network.hint')}</Typography.Paragraph>
            <NetworkGraph nodes={fleet.data ?? []} />
          </>
        )}
      </Card>
      <EditModal node={editing} onClose={() => setEditing(null)} />
    </div>
  );
}
