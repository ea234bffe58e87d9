/** Settings → Database (admin): results data sources; the built-in store's engine, location, size, health, row counts, task-log retention and cleanup. */
import { useEffect, useState } from 'react';
import { Alert, Button, Descriptions, InputNumber, Space, Table, Tag, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { DatabaseTableCount } from '@crawldeck/shared';
import { useCleanup, useDatabaseInfo, useSaveRetention } from '../api.ts';
import { formatBytes } from '../format.ts';
import { DataSourcesPanel } from './DataSourcesPanel.tsx';
import { toasts } from '../../../api/toasts.ts';

export function DatabaseTab({ isAdmin }: { isAdmin: boolean }) {
  const { t } = useTranslation(['setting', 'common']);
  const info = useDatabaseInfo(isAdmin);
  const saveRetention = useSaveRetention();
  const cleanup = useCleanup();
  const [days, setDays] = useState<number | null>(null);
  useEffect(() => setDays(info.data?.log_retention_days ?? null), [info.data?.log_retention_days]);

  if (!isAdmin) return <Alert type="info" showIcon message={t('database.adminOnly')} />;
  const d = info.data;
  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }} data-panel="database">
      <DataSourcesPanel />
      <Descriptions
        bordered
        size="small"
        column={1}
        labelStyle={{ width: 220 }}
        extra={
          <Button icon={<ReloadOutlined />} onClick={() => void info.refetch()} loading={info.isFetching}>
            {t('database.refresh')}
          </Button>
        }
        items={[
          {
            key: 'engine',
            label: t('database.engine'),
            children: d ? <span data-testid="db-engine">{t(`database.engines.${d.engine}`)}</span> : '…',
          },
          {
            key: 'location',
            label: t('database.location'),
            children: d ? (
              <Typography.Text code copyable>
                {d.location}
              </Typography.Text>
            ) : (
              '…'
            ),
          },
          {
            key: 'size',
            label: t('database.size'),
            children: d ? `${formatBytes(d.size_bytes)} (${d.size_bytes.toLocaleString()} B)` : '…',
          },
          {
            key: 'health',
            label: t('database.health'),
            children: d ? (
              d.health.ok ? (
                <Tag color="green">{t('database.healthy', { ms: d.health.latency_ms })}</Tag>
              ) : (
                <Tag color="red">{t('database.unhealthy', { error: d.health.error })}</Tag>
              )
            ) : (
              '…'
            ),
          },
          {
            key: 'retention',
            label: t('database.retention'),
            children: (
              <Space direction="vertical" size={4}>
                <Space wrap>
                  <InputNumber
                    min={0}
                    max={36500}
                    precision={0}
                    value={days}
                    onChange={(v) => setDays(v)}
                    data-testid="retention-days"
                  />
                  <Button
                    type="primary"
                    loading={saveRetention.isPending}
                    disabled={days === null || days === d?.log_retention_days}
                    onClick={async () => {
                      await saveRetention.mutateAsync(days ?? 0);
                      void toasts().success(t('general.saved'));
                    }}
                  >
                    {t('common:save')}
                  </Button>
                  <Button
                    loading={cleanup.isPending}
                    onClick={async () => {
                      const r = await cleanup.mutateAsync();
                      void toasts().info(
                        r.ran ? t('database.cleanupDone', { count: r.deleted }) : t('database.cleanupSkipped'),
                      );
                    }}
                  >
                    {t('database.cleanup')}
                  </Button>
                </Space>
                <Typography.Text type="secondary">{t('database.retentionHint')}</Typography.Text>
              </Space>
            ),
          },
          {
            key: 'last',
            label: t('database.lastCleanup'),
            children: d?.last_cleanup
              ? t('database.lastCleanupValue', {
                  at: dayjs(d.last_cleanup.at).format('YYYY-MM-DD HH:mm:ss'),
                  count: d.last_cleanup.deleted,
                })
              : t('database.never'),
          },
        ]}
      />
      <Table<DatabaseTableCount>
        size="small"
        rowKey="table"
        title={() => <Typography.Text strong>{t('database.tables')}</Typography.Text>}
        loading={info.isLoading}
        dataSource={d?.tables ?? []}
        pagination={false}
        columns={[
          {
            title: t('database.table'),
            dataIndex: 'table',
            render: (v: string) => <Typography.Text code>{v}</Typography.Text>,
          },
          {
            title: t('database.rows'),
            dataIndex: 'rows',
            align: 'right',
            width: 200,
            render: (v: number, r) => (
              <span>
                {r.approximate ? '≈ ' : ''}
                {v.toLocaleString()}
                {r.approximate ? <Tag style={{ marginLeft: 8 }}>{t('database.approximate')}</Tag> : null}
              </span>
            ),
          },
        ]}
      />
    </Space>
  );
}
