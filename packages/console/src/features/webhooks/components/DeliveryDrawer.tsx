/** Delivery log of one webhook: every attempt with status, error, duration and bodies. */
import { useState } from 'react';
import { Drawer, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WebhookDeliveryInfo, WebhookInfo } from '@crawldeck/shared';
import { useDeliveries } from '../api.ts';

export default function DeliveryDrawer({ webhook, onClose }: { webhook: WebhookInfo | null; onClose(): void }) {
  const { t } = useTranslation('webhooks');
  const [page, setPage] = useState(1);
  const q = useDeliveries(webhook?._id ?? null, page);
  return (
    <Drawer
      open={!!webhook}
      onClose={onClose}
      width={820}
      title={webhook ? t('deliveries.title', { name: webhook.name || webhook.url }) : ''}
      destroyOnHidden
      className="webhook-deliveries-drawer"
    >
      <Table<WebhookDeliveryInfo>
        rowKey="_id"
        size="small"
        loading={q.isLoading}
        dataSource={q.data?.list ?? []}
        pagination={{
          current: page,
          pageSize: 20,
          total: q.data?.total ?? 0,
          onChange: setPage,
          showSizeChanger: false,
        }}
        expandable={{
          expandedRowRender: (d) => (
            <div>
              <Typography.Text strong>{t('deliveries.request')}</Typography.Text>
              <pre style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', maxHeight: 200, overflow: 'auto' }}>
                {d.request_body}
              </pre>
              <Typography.Text strong>{t('deliveries.response')}</Typography.Text>
              <pre style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', maxHeight: 200, overflow: 'auto' }}>
                {d.response_body}
              </pre>
            </div>
          ),
        }}
        columns={[
          {
            title: t('deliveries.time'),
            dataIndex: 'create_ts',
            render: (ts: string | null) => (ts ? new Date(ts).toLocaleString() : '-'),
          },
          {
            title: t('deliveries.event'),
            dataIndex: 'event',
            render: (e: string) => t(`events.${e}`, { defaultValue: e }),
          },
          { title: t('deliveries.attempt'), dataIndex: 'attempt' },
          {
            title: t('deliveries.result'),
            key: 'result',
            render: (_, d) => (
              <span>
                <Tag color={d.ok ? 'success' : 'error'}>{d.ok ? t('deliveries.ok') : t('deliveries.failed')}</Tag>
                {d.http_status ?? ''} {d.ok ? '' : d.error}
              </span>
            ),
          },
          { title: t('deliveries.duration'), dataIndex: 'duration_ms', render: (ms: number) => `${ms} ms` },
        ]}
      />
    </Drawer>
  );
}
