/** Dependencies across nodes: each language and package, and which version every node has (or is getting). */
import { Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DependencyRow, NodeListItem } from '@crawldeck/shared';
import { useDependencies } from '../../environments/api.ts';
import EnvStateTag from './EnvStateTag.tsx';

export default function DependenciesView({ nodes }: { nodes: NodeListItem[] }) {
  const { t } = useTranslation('environments');
  const deps = useDependencies();
  return (
    <div data-testid="env-dependencies">
      <Typography.Paragraph type="secondary">{t('dependencies.hint')}</Typography.Paragraph>
      <Table
        rowKey={(d) => `${d.target}:${d.name}`}
        size="small"
        loading={deps.isLoading}
        scroll={{ x: true }}
        locale={{ emptyText: t('dependencies.empty') }}
        pagination={{ pageSize: 50, hideOnSinglePage: true }}
        dataSource={deps.data ?? []}
        columns={[
          {
            title: t('dependencies.target'),
            dataIndex: 'target',
            width: 100,
            render: (x: string) => <Tag>{t(`dependencies.targets.${x}`)}</Tag>,
          },
          {
            title: t('fields.name'),
            dataIndex: 'name',
            render: (n: string, d: DependencyRow) => (
              <span>
                <strong>{n}</strong>
                {d.all_nodes && (
                  <Tag color="blue" style={{ marginLeft: 8 }}>
                    {t('fields.allNodes')}
                  </Tag>
                )}
              </span>
            ),
          },
          ...nodes.map((n) => ({
            title: n.name,
            key: n._id,
            render: (_: unknown, d: DependencyRow) => {
              const on = d.nodes.find((x) => x.node_id === n._id);
              if (!on) return <EnvStateTag state="not-installed" />;
              return on.state === 'installed' ? <code>{on.version || '✓'}</code> : <EnvStateTag state={on.state} />;
            },
          })),
        ]}
      />
    </div>
  );
}
