/** /setting: General, Notifications, Global Variable, Database, Password and API tokens. */
import { Card, Tabs, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useState, type ReactNode } from 'react';
import { useUserStore } from '../../app/stores/user.ts';
import { GeneralTab } from './components/GeneralTab.tsx';
import NotificationsPanel from './components/NotificationsPanel.tsx';
import { VariablesTab } from './components/VariablesTab.tsx';
import { DatabaseTab } from './components/DatabaseTab.tsx';
import { PasswordTab } from './components/PasswordTab.tsx';
import { TokensTab } from './components/TokensTab.tsx';
import TourFor from '../tours/TourFor.tsx';

const TABS = ['general', 'notifications', 'globalVariable', 'database', 'password', 'tokens'] as const;
type Tab = (typeof TABS)[number];

export default function SettingPage() {
  const { t } = useTranslation(['setting', 'route']);
  const isAdmin = useUserStore((s) => s.role) === 'admin';
  // Initial tab from ?tab= (deep links); local state afterwards, since the view is kept alive across routes.
  const [active, setActive] = useState<Tab>(() => {
    const q = new URLSearchParams(window.location.search).get('tab') ?? '';
    return (TABS as readonly string[]).includes(q) ? (q as Tab) : 'general';
  });
  const panels: Record<Tab, ReactNode> = {
    general: <GeneralTab isAdmin={isAdmin} />,
    notifications: <NotificationsPanel isAdmin={isAdmin} />,
    globalVariable: <VariablesTab isAdmin={isAdmin} />,
    database: <DatabaseTab isAdmin={isAdmin} />,
    password: <PasswordTab />,
    tokens: <TokensTab />,
  };
  return (
    <div className="app-page" data-page="setting">
      <TourFor name="setting" />
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:setting')}
        </Typography.Title>
      </div>
      <Card>
        <Tabs
          activeKey={active}
          onChange={(k) => setActive(k as Tab)}
          destroyOnHidden
          items={TABS.map((tab) => ({
            key: tab,
            label: (
              <span data-tab={tab} data-tour={`setting-tab-${tab}`}>
                {t(`tabs.${tab}`)}
              </span>
            ),
            children: panels[tab],
          }))}
        />
      </Card>
    </div>
  );
}
