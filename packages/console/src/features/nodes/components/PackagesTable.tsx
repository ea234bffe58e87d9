/**
 * The node's pip or npm packages with their state and version; administrators upgrade them, and uninstall them after
 * a confirmation naming the package and the node (or every node, for a package marked for all nodes).
 */
import { Button, Space, Table, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { NODE_RUNTIME_PIP_PACKAGES, type EnvJobBody, type NodePackage } from '@crawldeck/shared';
import EnvStateTag from './EnvStateTag.tsx';
import PackageInstallForm from './PackageInstallForm.tsx';
import UninstallButton from './UninstallButton.tsx';

interface Props {
  target: 'pip' | 'npm';
  packages: NodePackage[];
  isAdmin: boolean;
  nodeId: string;
  nodeName: string;
  start(body: EnvJobBody): void;
}

/** pip compares names after normalisation (`PIP` is `pip`). */
const pipKey = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

export default function PackagesTable({ target, packages, isAdmin, nodeId, nodeName, start }: Props) {
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
            render: (n: string, p: NodePackage) => (
              <span>
                <strong data-testid={`env-${target}-row-${n}`}>{n}</strong>
                {p.system && (
                  <Tag bordered={false} style={{ marginLeft: 8 }} data-testid={`env-${target}-system-${n}`}>
                    {t('system')}
                  </Tag>
                )}
              </span>
            ),
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
                        <UninstallButton
                          what={t('confirmUninstall.package', { target, name: p.name })}
                          where={
                            p.all_nodes
                              ? t('confirmUninstall.allNodes')
                              : t('confirmUninstall.thisNode', { node: nodeName })
                          }
                          locked={
                            target === 'pip' && NODE_RUNTIME_PIP_PACKAGES.includes(pipKey(p.name))
                              ? t('pipLocked')
                              : p.system
                                ? t('systemLocked')
                                : undefined
                          }
                          testId={`env-uninstall-${target}-${p.name}`}
                          onConfirm={() => job(p, 'uninstall')}
                        />
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
