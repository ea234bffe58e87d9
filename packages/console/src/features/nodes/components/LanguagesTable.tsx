/**
 * The node's languages: state and version, and (administrators) install on this node or on all nodes, or uninstall
 * from this node after a confirmation that names the system packages; the node's own runtimes stay.
 */
import { Button, Space, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { NODE_RUNTIME_LANGUAGES, type EnvJobBody, type EnvLanguage, type NodeLanguage } from '@crawldeck/shared';
import { useEnvLanguages } from '../../environments/api.ts';
import EnvStateTag from './EnvStateTag.tsx';
import UninstallButton from './UninstallButton.tsx';

interface Props {
  languages: NodeLanguage[];
  isAdmin: boolean;
  start(body: EnvJobBody): void;
  nodeId: string;
  nodeName: string;
  /** The node's package manager ('' when it has none): which of a language's system packages go. */
  packageManager: string;
}

/** The system packages an uninstall of the language removes with this package manager (all of them when unknown). */
function systemPackages(lang: EnvLanguage | undefined, pm: string): string[] {
  if (!lang) return [];
  const p = lang.packages;
  const chosen = pm === 'apt' || pm === 'dnf' || pm === 'apk' ? p[pm] : pm === 'yum' ? (p.yum ?? p.dnf) : undefined;
  return chosen ?? [...new Set(Object.values(p).flatMap((x) => x ?? []))];
}

export default function LanguagesTable({ languages, isAdmin, start, nodeId, nodeName, packageManager }: Props) {
  const { t } = useTranslation('environments');
  const catalogue = useEnvLanguages(isAdmin);
  const job = (l: NodeLanguage, action: 'install' | 'uninstall', all = false) =>
    start({ target: 'language', action, name: l.key, ...(all ? { all_nodes: true } : { node_ids: [nodeId] }) });
  const uninstall = (l: NodeLanguage) => {
    const packages = systemPackages(
      catalogue.data?.find((c) => c.key === l.key),
      packageManager,
    );
    const runtime = NODE_RUNTIME_LANGUAGES.includes(l.key);
    return (
      <UninstallButton
        what={t('confirmUninstall.language', { name: l.name, packages: packages.join(', ') || '-' })}
        where={t('confirmUninstall.thisNode', { node: nodeName })}
        locked={runtime ? t('runtimeLocked', { name: l.name }) : undefined}
        testId={`env-uninstall-${l.key}`}
        onConfirm={() => job(l, 'uninstall')}
      />
    );
  };
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
                        uninstall(l)
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
