/** The spider table's columns: name, type, project, command, public or private, last update, actions. */
import { Button, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { GlobalOutlined, LockOutlined } from '@ant-design/icons';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { Spider, SpiderType } from '../types.ts';
import { RunSpiderButton } from '../../tasks/components/RunDialog.tsx';

interface Options {
  /** Project names by id, for the project column. */
  projectNames: Map<string, string>;
  /** Asks to delete the spiders with these ids; the label names a single one. */
  onDelete(ids: string[], label: string): void;
}

export function useSpiderColumns({ projectNames, onDelete }: Options) {
  const { t } = useTranslation(['spiders', 'common']);
  const navigate = useNavigate();
  const columns: TableProps<Spider>['columns'] = [
    {
      title: t('spiders:fields.name'),
      dataIndex: 'name',
      key: 'name',
      sorter: true,
      render: (_, s) => (
        <div className="spider-name-cell">
          <Link to={`/spiders/${s._id}`} className="spider-name-link" data-testid="spider-link">
            {s.display_name || s.name}
          </Link>
          {s.display_name && s.display_name !== s.name && <span className="spider-name-sub">{s.name}</span>}
        </div>
      ),
    },
    {
      title: t('spiders:fields.type'),
      dataIndex: 'type',
      key: 'type',
      width: 120,
      render: (v: SpiderType) => (
        <Tag color={v === 'configurable' ? 'purple' : 'geekblue'}>{t(`spiders:types.${v}`)}</Tag>
      ),
    },
    {
      title: t('spiders:fields.project'),
      dataIndex: 'project_id',
      key: 'project',
      width: 160,
      render: (v: string | null) =>
        v && projectNames.get(v) ? (
          <Tag bordered={false}>{projectNames.get(v)}</Tag>
        ) : (
          <Typography.Text type="secondary">{t('spiders:noProject')}</Typography.Text>
        ),
    },
    {
      title: t('spiders:fields.cmd'),
      dataIndex: 'cmd',
      key: 'cmd',
      ellipsis: true,
      render: (v: string) =>
        v ? <code className="spider-cmd">{v}</code> : <Typography.Text type="secondary">-</Typography.Text>,
    },
    {
      title: t('spiders:fields.isPublic'),
      dataIndex: 'is_public',
      key: 'is_public',
      width: 100,
      align: 'center',
      render: (v: boolean) =>
        v ? (
          <Tooltip title={t('spiders:public')}>
            <GlobalOutlined className="spider-public" />
          </Tooltip>
        ) : (
          <Tooltip title={t('spiders:private')}>
            <LockOutlined className="spider-private" />
          </Tooltip>
        ),
    },
    {
      title: t('spiders:fields.updateTs'),
      dataIndex: 'update_ts',
      key: 'update_ts',
      width: 170,
      sorter: true,
      render: (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '-'),
    },
    {
      title: t('spiders:actions'),
      key: 'actions',
      width: 210,
      fixed: 'right',
      render: (_, s) => (
        <Space size={4}>
          <RunSpiderButton spiders={[s]} type="link" size="small" />
          <Button type="link" size="small" onClick={() => navigate(`/spiders/${s._id}`)}>
            {t('spiders:view')}
          </Button>
          <Button
            type="link"
            size="small"
            danger
            onClick={() => onDelete([s._id], s.display_name || s.name)}
            data-testid="spider-delete"
          >
            {t('spiders:delete.action')}
          </Button>
        </Space>
      ),
    },
  ];
  return columns;
}
