import { Space, Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import type { SandboxInfo } from '@crawldeck/shared';

/**
 * How a node confines its tasks: a green tag when every task runs in a sandbox of its own, an orange one with the
 * node's reason when it cannot (normal users' tasks then stay off it unless an administrator allows them).
 */
export default function SandboxTag({
  sandbox,
  detail = false,
}: {
  sandbox: SandboxInfo | undefined;
  detail?: boolean;
}) {
  const { t } = useTranslation();
  if (!sandbox) return <>-</>;
  if (!sandbox.isolated)
    return (
      <Tooltip title={sandbox.reason}>
        <Tag color="orange" bordered={false} data-testid="sandbox-tag">
          {t('nodes:sandbox.none')}
        </Tag>
      </Tooltip>
    );
  const tag = (
    <Tag color="green" bordered={false} data-testid="sandbox-tag">
      {t('nodes:sandbox.isolated')}
    </Tag>
  );
  if (!detail) return tag;
  return (
    <Space size={4} wrap>
      {tag}
      {sandbox.own_uids && <Tag bordered={false}>{t('nodes:sandbox.ownUids')}</Tag>}
      {sandbox.limits && <Tag bordered={false}>{t('nodes:sandbox.limits')}</Tag>}
    </Space>
  );
}
