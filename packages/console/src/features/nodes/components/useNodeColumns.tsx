/** The node table's columns: name, type, status, address, system, running tasks, enabled, last heartbeat, actions. */
import { Button, Space, Tag, Tooltip } from 'antd';
import type { TableProps } from 'antd';
import { DeleteOutlined, EditOutlined, EyeOutlined } from '@ant-design/icons';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { NodeListItem } from '@crawldeck/shared';
import { formatTs } from '../../tasks/format.ts';
import NodeStatusTag, { NodeTypeTag } from './NodeStatusTag.tsx';
import SandboxTag from './SandboxTag.tsx';
import { WIDE_SCREEN_ONLY as WIDE } from '../../../app/breakpoints.ts';

interface Options {
  /** Administrators edit nodes and delete offline workers. */
  isAdmin: boolean;
  onEdit(n: NodeListItem): void;
  onDelete(n: NodeListItem): void;
}

export function useNodeColumns({ isAdmin, onEdit, onDelete }: Options) {
  const { t } = useTranslation(['nodes', 'common']);
  const navigate = useNavigate();
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
                  onClick={() => onEdit(n)}
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
                  onClick={() => onDelete(n)}
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
  return columns;
}
