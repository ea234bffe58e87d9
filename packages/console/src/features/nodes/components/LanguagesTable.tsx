/** The node's languages: state and version, and (administrators) install on this node or on all nodes. */
import { Button, Space, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { EnvJobBody, NodeLanguage } from '@crawldeck/shared';
import EnvStateTag from './EnvStateTag.tsx';

interface Props {
  languages: NodeLanguage[];
  isAdmin: boolean;
  start(body: EnvJobBody): void;
  nodeId: string;
}

export default function LanguagesTable({ languages, isAdmin, start, nodeId }: Props) {
  const { t } = useTranslation('environments');
  const job = (l: NodeLanguage, action: 'install' | 'uninstall', all = false) =>
    start({ target: 'language', action, name: l.key, ...(all ? { all_nodes: true } : { node_ids: [nodeId] }) });
  return (
    <Table
      rowKey="key"
      size="small"
      pagination={false}
      data-testid="env-languages"
      dataSource={languages}
      columns={[
        {
          title: t('fields.name'),
          dataIndex: 'name',
          render: (n: string, l) => (
            <span data-testid={`env-language-${l.key}`}>
              <strong>{n}</strong> <Typography.Text type="secondary">{l.executable}</Typography.Text>
            </span>
          ),
        },
        {
          title: t('fields.state'),
          dataIndex: 'state',
          width: 140,
          render: (s: NodeLanguage['state']) => <EnvStateTag state={s} />,
        },
        { title: t('fields.version'), dataIndex: 'version', width: 120 },
        { title: t('fields.path'), dataIndex: 'path', render: (p: string) => (p ? <code>{p}</code> : '-') },
        ...(isAdmin
          ? [
              {
                title: t('fields.action'),
                key: 'action',
                width: 260,
                render: (_: unknown, l: NodeLanguage) =>
                  l.state === 'installing' ? null : (
                    <Space size="small">
                      {l.state === 'not-installed' ? (
                        <>
                          <Button
                            size="small"
                            type="primary"
                            data-testid={`env-install-${l.key}`}
                            onClick={() => job(l, 'install')}
                          >
                            {t('actions.install')}
                          </Button>
                          <Button size="small" onClick={() => job(l, 'install', true)}>
                            {t('actions.installAll')}
                          </Button>
                        </>
                      ) : (
                        <Button size="small" danger onClick={() => job(l, 'uninstall')}>
                          {t('actions.uninstall')}
                        </Button>
                      )}
                    </Space>
                  ),
              },
            ]
          : []),
      ]}
    />
  );
}
