/** Settings → General, for administrators: which tasks nodes take and how nodes may join. */
import { useTranslation } from 'react-i18next';
import { SettingSwitch } from './SettingSwitch.tsx';

type Flag = 'Y' | 'N' | undefined;

export function NodeAccessSwitches(props: { onMaster: Flag; unsandboxed: Flag; joinSharedKey: Flag }) {
  const { t } = useTranslation('setting');
  return (
    <>
      <SettingSwitch
        setting="user_tasks_on_master"
        value={props.onMaster}
        label={t('general.userTasksOnMaster')}
        hint={t('general.userTasksOnMasterHint')}
        isAdmin
        testId="user-tasks-on-master"
      />
      <SettingSwitch
        setting="user_tasks_unsandboxed"
        value={props.unsandboxed}
        label={t('general.userTasksUnsandboxed')}
        hint={t('general.userTasksUnsandboxedHint')}
        isAdmin
        testId="user-tasks-unsandboxed"
      />
      <SettingSwitch
        setting="node_join_shared_key"
        value={props.joinSharedKey}
        label={t('general.nodeJoinSharedKey')}
        hint={t('general.nodeJoinSharedKeyHint')}
        isAdmin
        testId="node-join-shared-key"
      />
    </>
  );
}
