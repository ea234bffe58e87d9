// Settings → Notifications: channels, rules, the alert history, and the webhooks (add/edit, send test, delivery log).
import { useState } from 'react';
import { Alert, Button, Popconfirm, Space, Switch, Table, Tabs, Tag, Tooltip, Typography } from 'antd';
import { DeleteOutlined, EditOutlined, HistoryOutlined, PlusOutlined, SendOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { WebhookInfo } from '@crawldeck/shared';
import { useDeleteWebhook, useSaveWebhook, useTestWebhook, useWebhooks } from '../../webhooks/api.ts';
import WebhookFormModal from '../../webhooks/components/WebhookFormModal.tsx';
import DeliveryDrawer from '../../webhooks/components/DeliveryDrawer.tsx';
import { toasts } from '../../../api/toasts.ts';
import ChannelsTab from '../../notifications/components/ChannelsTab.tsx';
import RulesTab from '../../notifications/components/RulesTab.tsx';
import AlertsTab from '../../notifications/components/AlertsTab.tsx';

/** Notifications are the administrators' business: other users read why the tab is empty instead of refused calls. */
export default function NotificationsPanel({ isAdmin }: { isAdmin: boolean }) {
  const { t } = useTranslation(['webhooks', 'notifications']);
  if (!isAdmin) return <Alert type="info" showIcon message={t('adminOnly')} data-testid="webhooks-admin-only" />;
  return (
    <Tabs
      size="small"
      destroyOnHidden
      defaultActiveKey={initialSubTab()}
      items={[
        { key: 'channels', label: t('notifications:tabs.channels'), children: <ChannelsTab /> },
        { key: 'rules', label: t('notifications:tabs.rules'), children: <RulesTab /> },
        { key: 'alerts', label: t('notifications:tabs.alerts'), children: <AlertsTab /> },
        { key: 'webhooks', label: t('notifications:tabs.webhooks'), children: <WebhooksPanel /> },
      ].map((tab) => ({ ...tab, label: <span data-subtab={tab.key}>{tab.label}</span> }))}
    />
  );
}

const SUB_TABS = ['channels', 'rules', 'alerts', 'webhooks'];

/** The sub-tab a deep link names (`/setting?tab=notifications&sub=webhooks`), else the channels. */
function initialSubTab(): string {
  const sub = new URLSearchParams(window.location.search).get('sub') ?? '';
  return SUB_TABS.includes(sub) ? sub : 'channels';
}

function WebhooksPanel() {
  const { t } = useTranslation('webhooks');
  const hooks = useWebhooks();
  const save = useSaveWebhook();
  const del = useDeleteWebhook();
  const test = useTestWebhook();
  const [editing, setEditing] = useState<WebhookInfo | null | undefined>(undefined);
  const [logOf, setLogOf] = useState<WebhookInfo | null>(null);

  async function sendTest(h: WebhookInfo) {
    const r = await test.mutateAsync(h._id);
    if (r.ok) void toasts().success(t('messages.testOk', { status: r.http_status, ms: r.duration_ms }));
    else void toasts().error(t('messages.testFailed', { error: r.error || `HTTP ${r.http_status}` }));
  }

  return (
    <div data-panel="notifications">
      <Space style={{ marginBottom: 12, width: '100%', justifyContent: 'space-between' }} wrap>
        <Typography.Text type="secondary">{t('intro')}</Typography.Text>
        <Button type="primary" icon={<PlusOutlined />} className="webhook-add" onClick={() => setEditing(null)}>
          {t('add')}
        </Button>
      </Space>
      <Table<WebhookInfo>
        rowKey="_id"
        size="middle"
        loading={hooks.isLoading}
        dataSource={hooks.data ?? []}
        pagination={false}
        locale={{ emptyText: t('empty') }}
        scroll={{ x: 900 }}
        columns={[
          { title: t('columns.name'), dataIndex: 'name' },
          {
            title: t('columns.url'),
            dataIndex: 'url',
            render: (u: string) => (
              <Typography.Text ellipsis style={{ maxWidth: 260 }}>
                {u}
              </Typography.Text>
            ),
          },
          {
            title: t('columns.events'),
            dataIndex: 'events',
            render: (ev: string[]) => ev.map((e) => <Tag key={e}>{t(`events.${e}`)}</Tag>),
          },
          {
            title: t('columns.scope'),
            dataIndex: 'spider_ids',
            render: (ids: string[]) => (ids.length ? t('scopeSome', { count: ids.length }) : t('scopeAll')),
          },
          {
            title: t('columns.enabled'),
            dataIndex: 'enabled',
            render: (on: boolean, h) => (
              <Switch
                size="small"
                checked={on}
                onChange={(v) => void save.mutateAsync({ id: h._id, form: { enabled: v } }).catch(() => undefined)}
              />
            ),
          },
          {
            title: t('columns.last'),
            dataIndex: 'last_status',
            render: (s: string | null, h) =>
              s ? (
                <Tooltip title={h.last_delivery_ts ? new Date(h.last_delivery_ts).toLocaleString() : ''}>
                  <Tag color={s === 'success' ? 'success' : 'error'}>{t(`lastStatus.${s}`)}</Tag>
                </Tooltip>
              ) : (
                <Tag>{t('lastStatus.none')}</Tag>
              ),
          },
          {
            title: t('columns.action'),
            key: 'action',
            fixed: 'right',
            width: 170,
            render: (_, h) => (
              <Space size={2}>
                <Tooltip title={t('actions.test')}>
                  <Button
                    type="text"
                    size="small"
                    icon={<SendOutlined />}
                    aria-label={t('actions.test')}
                    loading={test.isPending && test.variables === h._id}
                    onClick={() => void sendTest(h).catch(() => undefined)}
                  />
                </Tooltip>
                <Tooltip title={t('actions.deliveries')}>
                  <Button
                    type="text"
                    size="small"
                    icon={<HistoryOutlined />}
                    aria-label={t('actions.deliveries')}
                    onClick={() => setLogOf(h)}
                  />
                </Tooltip>
                <Tooltip title={t('actions.edit')}>
                  <Button
                    type="text"
                    size="small"
                    icon={<EditOutlined />}
                    aria-label={t('actions.edit')}
                    onClick={() => setEditing(h)}
                  />
                </Tooltip>
                <Popconfirm
                  title={t('actions.confirmDelete', { name: h.name || h.url })}
                  onConfirm={() => del.mutateAsync(h._id).then(() => void toasts().success(t('messages.deleted')))}
                >
                  <Button type="text" size="small" danger icon={<DeleteOutlined />} aria-label={t('actions.delete')} />
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      <WebhookFormModal open={editing !== undefined} webhook={editing} onClose={() => setEditing(undefined)} />
      <DeliveryDrawer webhook={logOf} onClose={() => setLogOf(null)} />
    </div>
  );
}

export { NotificationsPanel };
