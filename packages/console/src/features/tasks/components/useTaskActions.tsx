/** Cancel / restart / delete with confirmation and a result toast (single or batch). */
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { useCancelTasks, useDeleteTasks, useRestartTasks } from '../api.ts';

export function useTaskActions(after?: {
  restarted?(ids: string[]): void;
  deleted?(ids: string[]): void;
  done?(): void;
}) {
  const { t } = useTranslation(['tasks', 'common']);
  const { modal, message } = App.useApp();
  const cancel = useCancelTasks();
  const restart = useRestartTasks();
  const del = useDeleteTasks();

  const confirm = (kind: 'cancel' | 'restart' | 'delete', ids: string[], run: () => Promise<void>) =>
    modal.confirm({
      title: t(`tasks:confirm.${kind}Title`),
      content: t(`tasks:confirm.${kind}Text`, { count: ids.length }),
      // cancelling tasks must not offer a button that is also called "Cancel"
      okText: kind === 'cancel' ? t('tasks:confirm.cancelOk') : t('common:confirm'),
      cancelText: kind === 'cancel' ? t('tasks:confirm.cancelKeep') : t('common:cancel'),
      okButtonProps: { danger: kind !== 'restart', className: `confirm-${kind}` },
      className: `task-confirm-${kind}`,
      onOk: run,
    });

  return {
    pending: cancel.isPending || restart.isPending || del.isPending,
    cancel: (ids: string[]) =>
      confirm('cancel', ids, async () => {
        await cancel.mutateAsync(ids);
        void message.success(t('tasks:done.cancelled'));
        after?.done?.();
      }),
    restart: (ids: string[]) =>
      confirm('restart', ids, async () => {
        const created = await restart.mutateAsync(ids);
        void message.success(t('tasks:done.restarted', { count: created.length }));
        after?.restarted?.(created);
        after?.done?.();
      }),
    remove: (ids: string[]) =>
      confirm('delete', ids, async () => {
        await del.mutateAsync(ids);
        void message.success(t('tasks:done.deleted', { count: ids.length }));
        after?.deleted?.(ids);
        after?.done?.();
      }),
  };
}
