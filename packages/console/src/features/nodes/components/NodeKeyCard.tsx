/**
 * Node detail, for administrators: whether the node has its own key for the node API and when it last used it,
 * with Rotate and Revoke behind a confirmation. A rotated key is shown once, with what to do when the node could
 * not be given it.
 */
import { useState, type ReactNode } from 'react';
import { Alert, Button, Descriptions, Popconfirm, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { NodeKeyIssued } from '@crawldeck/shared';
import { formatTs } from '../../tasks/format.ts';
import { useChangeNodeKey, useNodeKey } from '../api.ts';

export default function NodeKeyCard({ nodeId }: { nodeId: string }): ReactNode {
  const { t } = useTranslation('nodes');
  const state = useNodeKey(nodeId, true);
  const change = useChangeNodeKey(nodeId);
  const [issued, setIssued] = useState<NodeKeyIssued | null>(null);
  const k = state.data;
  const run = (action: 'rotate' | 'revoke') =>
    change.mutate(action, {
      onSuccess: (r) => setIssued(action === 'rotate' && r && 'key' in r ? r : null),
    });
  const stateTag = !k ? null : k.has_key ? (
    <Tag color="green">{t('ownKey.active')}</Tag>
  ) : k.revoked ? (
    <Tag color="red">{t('ownKey.revoked')}</Tag>
  ) : (
    <Tag>{t('ownKey.none')}</Tag>
  );
  return (
    <div className="node-key" data-testid="node-key">
      <Typography.Title level={5}>{t('ownKey.title')}</Typography.Title>
      <Descriptions bordered size="small" column={1}>
        <Descriptions.Item label={t('ownKey.state')}>
          <span data-testid="node-key-state">{stateTag}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('ownKey.created')}>{formatTs(k?.created_at)}</Descriptions.Item>
        <Descriptions.Item label={t('ownKey.lastUsed')}>
          {k?.last_used_at ? formatTs(k.last_used_at) : t('ownKey.never')}
        </Descriptions.Item>
      </Descriptions>
      <Space style={{ marginTop: 8 }}>
        <Popconfirm
          title={t('ownKey.confirmRotate')}
          okButtonProps={{ 'data-testid': 'node-key-rotate-ok' }}
          onConfirm={() => run('rotate')}
        >
          <Button size="small" loading={change.isPending} data-testid="node-key-rotate">
            {t('ownKey.rotate')}
          </Button>
        </Popconfirm>
        <Popconfirm
          title={t('ownKey.confirmRevoke')}
          okButtonProps={{ danger: true, 'data-testid': 'node-key-revoke-ok' }}
          onConfirm={() => run('revoke')}
        >
          <Button size="small" danger disabled={!k?.has_key} data-testid="node-key-revoke">
            {t('ownKey.revoke')}
          </Button>
        </Popconfirm>
      </Space>
      {issued && (
        <Alert
          style={{ marginTop: 8 }}
          type={issued.delivered ? 'success' : 'warning'}
          closable
          onClose={() => setIssued(null)}
          data-testid="node-key-issued"
          message={t('ownKey.issuedTitle')}
          description={
            <>
              <Typography.Text copyable code className="mono">
                {issued.key}
              </Typography.Text>
              <Typography.Paragraph style={{ marginTop: 8, marginBottom: 0 }}>
                {issued.delivered ? t('ownKey.delivered') : t('ownKey.notDelivered')}
              </Typography.Paragraph>
            </>
          }
        />
      )}
    </div>
  );
}
