/** The node's pip or npm packages with their state and version; administrators upgrade and uninstall them. */
import { Button, Space, Table, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { EnvJobBody, NodePackage } from '@crawldeck/shared';
import EnvStateTag from './EnvStateTag.tsx';
import PackageInstallForm from './PackageInstallForm.tsx';

interface Props {
  target: 'pip' | 'npm';
  packages: NodePackage[];
  isAdmin: boolean;
  nodeId: string;
  start(body: EnvJobBody): void;
}

export default function PackagesTable({ target, packages, isAdmin, nodeId, start }: Props) {
  const { t } = useTranslation('environments');
  const job = (p: NodePackage, action: 'upgrade' | 'uninstall') =>
    start({
      target,
      action,
      name: p.name,
      ...(p.all_nodes && action === 'uninstall' ? { all_nodes: true } : { node_ids: [nodeId] }),
    });
  return (
    <div data-testid={`env-${target}`}>
      {isAdmin && <PackageInstallForm target={target} nodeId={nodeId} start={start} />}
      <Table
        rowKey="name"
        size="small"
        pagination={{ pageSize: 20, hideOnSinglePage: true }}
        dataSource={packages}
        columns={[
          {
            title: t('fields.name'),
            dataIndex: 'name',
            render: (n: string) => <strong data-testid={`env-${target}-row-${n}`}>{n}</strong>,
          },
          {
            title: t('fields.state'),
            dataIndex: 'state',
            width: 140,
            render: (s: NodePackage['state']) => <EnvStateTag state={s} />,
          },
          { title: t('fields.version'), dataIndex: 'version', width: 140 },
          {
            title: t('fields.allNodes'),
            dataIndex: 'all_nodes',
            width: 110,
            render: (a: boolean) => (a ? <Tag color="blue">{t('fields.allNodes')}</Tag> : null),
          },
          ...(isAdmin
            ? [
                {
                  title: t('fields.action'),
                  key: 'action',
                  width: 200,
                  render: (_: unknown, p: NodePackage) =>
                    p.state === 'installed' ? (
                      <Space size="small">
                        <Button size="small" onClick={() => job(p, 'upgrade')}>
                          {t('actions.upgrade')}
                        </Button>
                        <Button size="small" danger onClick={() => job(p, 'uninstall')}>
                          {t('actions.uninstall')}
                        </Button>
                      </Space>
                    ) : null,
                },
              ]
            : []),
        ]}
      />
    </div>
  );
}
