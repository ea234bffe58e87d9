// Spider detail "Deploys" tab: syncs of the spider's files to nodes (GET /deploys?spider_id=), newest finish_ts first.
import { useState } from 'react';
import { Empty, Table, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useDeploys, type DeployRow } from '../../tasks/api.ts';
import { formatBytes, formatTs } from '../../tasks/format.ts';
import type { SpiderTabProps } from './types.ts';

export default function DeploysTab({ spider, active }: SpiderTabProps) {
  const { t } = useTranslation('tasks');
  const [page, setPage] = useState(1);
  const deploys = useDeploys(spider._id, page, active);
  return (
    <Table<DeployRow>
      rowKey="_id"
      size="middle"
      data-testid="spider-deploys"
      loading={deploys.isLoading}
      dataSource={deploys.data?.list ?? []}
      locale={{ emptyText: <Empty description={t('deploys.empty')} /> }}
      pagination={{
        current: page,
        pageSize: 10,
        total: deploys.data?.total ?? 0,
        onChange: setPage,
        showSizeChanger: false,
      }}
      columns={[
        { title: t('deploys.finishTs'), dataIndex: 'finish_ts', width: 180, render: formatTs },
        {
          title: t('deploys.node'),
          dataIndex: 'node_name',
          render: (n: string, r) => <Link to={`/nodes/${r.node_id}`}>{n || r.node_id.slice(-8)}</Link>,
        },
        {
          title: t('deploys.task'),
          dataIndex: 'task_id',
          width: 140,
          render: (id: string | null) =>
            id ? (
              <Link to={`/tasks/${id}`} className="mono">
                {id.slice(-8)}
              </Link>
            ) : (
              '-'
            ),
        },
        {
          title: t('deploys.files'),
          key: 'files',
          width: 170,
          render: (_: unknown, r) => `${r.files_changed} / ${r.files_total}`,
        },
        { title: t('deploys.bytes'), dataIndex: 'bytes', width: 120, render: (b: number) => formatBytes(b) },
        {
          title: t('deploys.error'),
          dataIndex: 'error',
          render: (e: string) =>
            e ? <Typography.Text type="danger">{e}</Typography.Text> : <Tag color="success">{t('deploys.ok')}</Tag>,
        },
      ]}
    />
  );
}
