/** A Y/N server setting as a switch in Settings → General: saved at once, only administrators may change it. */
import { Form, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSaveSetting } from '../api.ts';
import { toasts } from '../../../api/toasts.ts';

/** The server settings that are a plain Y or N. */
export type YesNoSettingKey =
  'allow_signup' | 'user_tasks_on_master' | 'user_tasks_unsandboxed' | 'node_join_shared_key';

interface SettingSwitchProps {
  setting: YesNoSettingKey;
  /** The stored value; undefined while it loads (the switch waits, disabled). */
  value: 'Y' | 'N' | undefined;
  label: string;
  hint: string;
  isAdmin: boolean;
  testId: string;
}

export function SettingSwitch({ setting, value, label, hint, isAdmin, testId }: SettingSwitchProps) {
  const { t } = useTranslation(['setting']);
  const save = useSaveSetting();
  return (
    <Form.Item label={label} extra={isAdmin ? hint : t('general.adminOnly')}>
      <Switch
        checked={value === 'Y'}
        disabled={!isAdmin || value === undefined || save.isPending}
        onChange={async (on) => {
          await save.mutateAsync({ [setting]: on ? 'Y' : 'N' });
          void toasts().success(t('general.saved'));
        }}
        data-testid={testId}
      />
    </Form.Item>
  );
}
