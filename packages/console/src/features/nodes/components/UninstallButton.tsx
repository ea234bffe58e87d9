/**
 * Uninstall on a node's Installation tab: asks first, naming what goes and from which node(s). What the node itself
 * runs on cannot be uninstalled (the master refuses it too): the button is then disabled and says why.
 */
import type { ReactNode } from 'react';
import { Button, Popconfirm, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

interface Props {
  /** What will be removed, in words. */
  what: string;
  /** On which node(s), in words. */
  where: string;
  /** Why it cannot be uninstalled; the button is disabled when set. */
  locked?: string;
  testId: string;
  onConfirm(): void;
}

export default function UninstallButton({ what, where, locked, testId, onConfirm }: Props): ReactNode {
  const { t } = useTranslation('environments');
  if (locked)
    return (
      <Tooltip title={locked}>
        <Button size="small" danger disabled data-testid={testId} data-locked="true">
          {t('actions.uninstall')}
        </Button>
      </Tooltip>
    );
  return (
    <Popconfirm
      title={t('confirmUninstall.title')}
      description={
        <div data-testid="env-uninstall-confirm" style={{ maxWidth: 360 }}>
          <Typography.Paragraph style={{ marginBottom: 4 }}>{what}</Typography.Paragraph>
          <Typography.Text strong>{where}</Typography.Text>
        </div>
      }
      okText={t('actions.uninstall')}
      okButtonProps={{ danger: true, 'data-testid': 'env-uninstall-ok' }}
      onConfirm={onConfirm}
    >
      <Button size="small" danger data-testid={testId}>
        {t('actions.uninstall')}
      </Button>
    </Popconfirm>
  );
}
