/** Settings → Database: the results data sources (built-in store first), add / edit / test / delete (admin). */
import { useState } from 'react';
import { App, Button, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { DataSourceInfo } from '@crawldeck/shared';
import { useDataSources, useDeleteDataSource } from '../datasources.api.ts';
import { DataSourceForm } from './DataSourceForm.tsx';

export function DataSourcesPanel() {
  const { t } = useTranslation(['datasources', 'common']);
  const { message } = App.useApp();
  const list = useDataSources(true);
  const remove = useDeleteDataSource();
  const [editing, setEditing] = useState<DataSourceInfo | undefined>();
  const [open, setOpen] = useState(false);

  const edit = (d?: DataSourceInfo) => {
    setEditing(d);
    setOpen(true);
  };

  return (
    <div data-panel="data-sources">
      <Table<DataSourceInfo>
        size="small"
        rowKey={(r) => r._id || 'builtin'}
        loading={list.isLoading}
        dataSource={list.data ?? []}
        pagination={false}
        data-testid="ds-table"
        title={() => (
          <Space style={{ width: '100%', justifyContent: 'space-between' }} wrap>
            <Space direction="vertical" size={0}>
              <Typography.Text strong>{t('title')}</Typography.Text>
              <Typography.Text type="secondary">{t('intro')}</Typography.Text>
            </Space>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => edit()} data-testid="ds-add">
              {t('add')}
            </Button>
          </Space>
        )}
        columns={[
          {
            title: t('columns.name'),
            dataIndex: 'name',
            render: (v: string, r) => (r.type === 'builtin' ? t('builtin') : v),
          },
          {
            title: t('columns.type'),
            dataIndex: 'type',
            width: 150,
            render: (v: DataSourceInfo['type']) => (
              <Tag color={v === 'builtin' ? 'default' : 'blue'}>{t(`types.${v}`)}</Tag>
            ),
          },
          {
            title: t('columns.address'),
            key: 'address',
            render: (_, r) => (
              <Typography.Text code>
                {r.type === 'builtin'
                  ? r.database
                  : `${r.host}:${r.port}/${r.database}${r.schema ? ` (${r.schema})` : ''}`}
              </Typography.Text>
            ),
          },
          { title: t('columns.username'), dataIndex: 'username', render: (v: string) => v || '-' },
          { title: t('columns.spiders'), dataIndex: 'spiders', width: 90, align: 'right' },
          {
            title: t('columns.action'),
            key: 'action',
            width: 160,
            render: (_, r) =>
              r.type === 'builtin' ? null : (
                <Space>
                  <Button size="small" onClick={() => edit(r)} data-testid={`ds-edit-${r.name}`}>
                    {t('editAction')}
                  </Button>
                  <Popconfirm
                    title={r.spiders ? t('inUse', { count: r.spiders }) : t('deleteConfirm')}
                    okButtonProps={{ disabled: r.spiders > 0 }}
                    onConfirm={async () => {
                      await remove.mutateAsync(r._id);
                      void message.success(t('deleted'));
                    }}
                  >
                    <Button size="small" danger data-testid={`ds-delete-${r.name}`}>
                      {t('deleteAction')}
                    </Button>
                  </Popconfirm>
                </Space>
              ),
          },
        ]}
      />
      <DataSourceForm
        open={open}
        editing={editing}
        onClose={() => setOpen(false)}
        onSaved={() => {
          setOpen(false);
          void message.success(t('saved'));
        }}
      />
    </div>
  );
}
