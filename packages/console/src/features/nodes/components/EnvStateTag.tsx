/** Installed / Not Installed / Installing, the three states of a language or package on a node. */
import { Tag } from 'antd';
import { LoadingOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { EnvState } from '@crawldeck/shared';

const COLOR: Record<EnvState, string> = { installed: 'success', 'not-installed': 'default', installing: 'processing' };

export default function EnvStateTag({ state }: { state: EnvState }) {
  const { t } = useTranslation('environments');
  return (
    <Tag
      color={COLOR[state]}
      className={`env-state env-state-${state}`}
      icon={state === 'installing' ? <LoadingOutlined /> : undefined}
    >
      {t(`state.${state}`)}
    </Tag>
  );
}
