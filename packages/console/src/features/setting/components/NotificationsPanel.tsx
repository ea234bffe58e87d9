// Settings → Notifications: an honest empty state. The webhooks engineer replaces this file with the real panel.
import { Empty } from 'antd';
import { useTranslation } from 'react-i18next';

export default function NotificationsPanel() {
  const { t } = useTranslation('setting');
  return (
    <div data-panel="notifications">
      <Empty description={t('notifications.empty')} />
    </div>
  );
}

export { NotificationsPanel };
