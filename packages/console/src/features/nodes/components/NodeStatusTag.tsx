/** Node status tag: Online / Offline / Unavailable. */
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

export const NODE_STATUS_COLORS: Record<string, string> = {
  online: 'success',
  offline: 'default',
  unavailable: 'warning',
};
/** The same colours for charts. */
export const NODE_STATUS_HEX: Record<string, string> = {
  online: '#52c41a',
  offline: '#bfbfbf',
  unavailable: '#faad14',
};

export default function NodeStatusTag({ status }: { status: string }) {
  const { t } = useTranslation('nodes');
  return (
    <Tag
      color={NODE_STATUS_COLORS[status] ?? 'default'}
      className={`node-status node-status-${status}`}
      data-status={status}
    >
      {t(`status.${status}`, { defaultValue: status })}
    </Tag>
  );
}

export function NodeTypeTag({ type }: { type: string }) {
  const { t } = useTranslation('nodes');
  return (
    <Tag color={type === 'master' ? 'geekblue' : 'cyan'} bordered={false} className={`node-type node-type-${type}`}>
      {t(`types.${type}`, { defaultValue: type })}
    </Tag>
  );
}
