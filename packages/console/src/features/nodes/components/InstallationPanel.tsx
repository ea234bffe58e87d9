/**
 * Installation (spec §2, §4): the executables the node found on its PATH, Installed / Not Installed. Installing
 * languages and dependencies from the console is not implemented on the server, and this panel says so.
 */
import { Alert, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { NodeInfo } from '@crawldeck/shared';

/** The executables a node looks for (issue 4 item 1). */
const KNOWN = ['python', 'python3', 'node', 'java', 'go', 'php', 'dotnet', 'git', 'scrapy'];

export default function InstallationPanel({ node }: { node: NodeInfo }) {
  const { t } = useTranslation('nodes');
  const found = new Map((node.systemInfo?.executables ?? []).map((e) => [e.name, e.path]));
  const names = [...KNOWN, ...[...found.keys()].filter((n) => !KNOWN.includes(n))];
  return (
    <div className="node-installation" data-testid="node-installation">
      <Alert type="warning" showIcon message={t('installation.notImplemented')} style={{ marginBottom: 12 }} />
      <Typography.Paragraph type="secondary">{t('installation.intro')}</Typography.Paragraph>
      {node.systemInfo?.python && (
        <Typography.Paragraph>
          {t('fields.python')}: <code>{node.systemInfo.python}</code>
        </Typography.Paragraph>
      )}
      <Table
        rowKey="name"
        size="small"
        pagination={false}
        style={{ maxWidth: 760 }}
        dataSource={names.map((name) => ({ name, path: found.get(name) ?? '' }))}
        columns={[
          { title: t('installation.name'), dataIndex: 'name', width: 160, render: (n: string) => <strong>{n}</strong> },
          {
            title: t('installation.status'),
            dataIndex: 'path',
            key: 'status',
            width: 140,
            render: (p: string) => (p ? <Tag color="success">{t('installation.installed')}</Tag> : <Tag>{t('installation.notInstalled')}</Tag>),
          },
          { title: t('installation.path'), dataIndex: 'path', render: (p: string) => (p ? <code>{p}</code> : <Typography.Text type="secondary">-</Typography.Text>) },
        ]}
      />
    </div>
  );
}
