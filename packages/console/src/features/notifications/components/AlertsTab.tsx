/** The alert history: what fired, to which channel, whether it was delivered, and the endpoint's answer. */
import { useState } from 'react';
import { Select, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ALERT_STATUSES, type AlertInfo } from '@crawldeck/shared';
import { useAlerts } from '../api.ts';

const COLORS: Record<string, string> = {
  delivered: 'success',
  failed: 'error',
  pending: 'processing',
  quiet: 'default',
};

export default function AlertsTab() {
  const { t } = useTranslation('notifications');
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const alerts = useAlerts(page, status);
  return (
    <div data-panel="alerts">
      <Select
        style={{ width: 180, marginBottom: 12 }}
        value={status}
        onChange={(v) => {
          setStatus(v);
          setPage(1);
        }}
        options={[
          { value: '', label: t('alerts.allStatuses') },
          ...ALERT_STATUSES.map((s) => ({ value: s, label: t(`statuses.${s}`) })),
        ]}
      />
      <Table<AlertInfo>
        rowKey="_id"
        size="middle"
        loading={alerts.isLoading}
        dataSource={alerts.data?.list ?? []}
        locale={{ emptyText: t('alerts.empty') }}
        pagination={{ current: page, pageSize: 20, total: alerts.data?.total ?? 0, onChange: setPage }}
        scroll={{ x: 1000 }}
        expandable={{
          expandedRowRender: (a) => (
            <Typography.Paragraph style={{ whiteSpace: 'pre-wrap' }}>
              {a.text}
              {a.link && `\n${a.link}`}
            </Typography.Paragraph>
          ),
        }}
        columns={[
          {
            title: t('columns.time'),
            dataIndex: 'create_ts',
            render: (ts: string | null) => (ts ? new Date(ts).toLocaleString() : ''),
          },
          { title: t('columns.rule'), dataIndex: 'rule_name' },
          { title: t('columns.title'), dataIndex: 'title' },
          {
            title: t('columns.channel'),
            dataIndex: 'channel_name',
            render: (n: string, a) => `${n} (${t(`kinds.${a.channel_kind}`)})`,
          },
          {
            title: t('columns.status'),
            dataIndex: 'status',
            render: (s: string) => (
              <Tag color={COLORS[s]} className={`alert-status-${s}`}>
                {t(`statuses.${s}`)}
              </Tag>
            ),
          },
          { title: t('columns.attempts'), dataIndex: 'attempts' },
          {
            title: t('columns.answer'),
            key: 'answer',
            render: (_, a) => (
              <Typography.Text ellipsis style={{ maxWidth: 260 }} title={a.answer || a.error}>
                {[a.answer_status, a.answer || a.error].filter((x) => x !== null && x !== '').join(' ')}
              </Typography.Text>
            ),
          },
        ]}
      />
    </div>
  );
}
