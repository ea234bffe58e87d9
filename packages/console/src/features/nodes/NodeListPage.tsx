/**
 * /nodes: the master and workers with type, status, address, system info, running tasks, enabled and last
 * heartbeat; 'How to add a node' for admins (nodes join by themselves, never added from the console); edit; delete offline
 * workers; a Network view (ECharts graph).
 */
import { useState } from 'react';
import { App, Button, Card, Form, Input, Modal, Segmented, Select, Space, Table, Tooltip, Typography } from 'antd';
import { ApartmentOutlined, AppstoreOutlined, ReloadOutlined, TableOutlined } from '@ant-design/icons';
import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { NodeEditBody, NodeListItem, NodeListQuery } from '@crawldeck/shared';
import { useUserStore } from '../../app/stores/user.ts';
import { useTaskEvents } from '../tasks/api.ts';
import { useDeleteNode, useNodePage, useNodes } from './api.ts';
import JoinPanel from './components/JoinPanel.tsx';
import NetworkGraph from './components/NetworkGraph.tsx';
import DependenciesView from './components/DependenciesView.tsx';
import { useNodeColumns } from './components/useNodeColumns.tsx';
import { NodeFormFields, useNodeForm, useSaveNode } from './components/NodeForm.tsx';
import './nodes.css';
import { dialogAction } from '../../app/dialogAction.ts';

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

  const columns = useNodeColumns({ isAdmin, onEdit: setEditing, onDelete: confirmDelete });

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
