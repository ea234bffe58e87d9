/**
 * The release dialog's light half, mounted by the layout and the navbar: the upgrade hint and a placeholder that
 * loads the dialog itself (tabs, markdown renderer) the first time it opens, by openReleaseDialog(), the hint or
 * the `?release=` debug query. Until then the console's first download carries none of it.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import { CloudUploadOutlined } from '@ant-design/icons';
import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { sendEvent } from '../../app/stats.ts';
import { useAppStore } from '../../app/stores/app.ts';
import { isUpgradeAvailable, RELEASE_ENTRY_ENABLED, useReleaseStore } from './store.ts';

const ReleaseDialogPanel = lazy(() => import('./ReleaseDialogPanel.tsx'));

/** Clicking upgrade: analytics event, then the dialog on How to Upgrade. */
export function clickUpgrade(): void {
  void sendEvent('upgrade_click');
  useReleaseStore.getState().open('how-to-upgrade');
}

/** Navbar hint shown when an upgrade is available; turned off by RELEASE_ENTRY_ENABLED. */
export function UpgradeHint() {
  const { t } = useTranslation('release');
  const latest = useAppStore((s) => s.latestRelease);
  const version = useAppStore((s) => s.version);
  if (!RELEASE_ENTRY_ENABLED || !isUpgradeAvailable(latest, version)) return null;
  return (
    <span className="right-menu-item upgrade-hint" onClick={clickUpgrade} data-testid="upgrade-hint">
      <CloudUploadOutlined />
      <span className="right-menu-text">{t('newVersion', { name: latest?.name })}</span>
    </span>
  );
}

export default function ReleaseDialog() {
  const visible = useReleaseStore((s) => s.visible);
  const debug = !!new URLSearchParams(useLocation().search).get('release');
  const [wanted, setWanted] = useState(false);
  useEffect(() => {
    if (visible || debug) setWanted(true);
  }, [visible, debug]);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <ReleaseDialogPanel />
    </Suspense>
  );
}
