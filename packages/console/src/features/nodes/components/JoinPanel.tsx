/** 'How to add a node': a node is never added from the console; admins see the join command. */
import { Alert, Typography } from 'antd';
import { BookOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useNodeJoin } from '../api.ts';
import { docsHref } from '../../docs/docsTree.ts';

export default function JoinPanel() {
  const { t, i18n } = useTranslation('nodes');
  const join = useNodeJoin(true);
  if (!join.data) return null;
  return (
    <Alert
      type="info"
      showIcon
      className="node-join"
      data-testid="node-join"
      message={<strong>{t('join.title')}</strong>}
      description={
        <div>
          <Typography.Paragraph style={{ marginBottom: 8 }}>{t('join.text')}</Typography.Paragraph>
          <Typography.Paragraph
            className="node-join-cmd"
            copyable={{ text: join.data.command, tooltips: [t('join.copy'), t('join.copied')] }}
            data-testid="node-join-cmd"
            style={{ marginBottom: 8 }}
          >
            <code>{join.data.command}</code>
          </Typography.Paragraph>
          <Typography.Paragraph style={{ marginBottom: 8 }}>{t('join.upgrade')}</Typography.Paragraph>
          <Typography.Text type="secondary" style={{ marginRight: 16 }}>
            {t('join.offline', { seconds: join.data.offline_seconds })}
          </Typography.Text>
          <a
            href={docsHref(join.data.docs_url, i18n.language)}
            target="_blank"
            rel="noreferrer"
            className="node-join-docs"
          >
            <BookOutlined /> {t('join.docs')}
          </a>
        </div>
      }
    />
  );
}
