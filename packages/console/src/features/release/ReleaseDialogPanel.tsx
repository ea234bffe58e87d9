/**
 * Release dialog: title 'Release' + latest release name, tabs 'Release Note' (markdown, no raw HTML,
 * safe links opened in a new window) and 'How to Upgrade' (back up, then update the code and restart, in the chosen language).
 * Loaded on demand by ReleaseDialog.tsx the first time it opens, so the markdown renderer stays out of the
 * console's first download.
 */
import { useEffect } from 'react';
import { Button, Empty, Modal, Tabs, Typography } from 'antd';
import { CloudUploadOutlined } from '@ant-design/icons';
import Markdown, { type Components } from 'react-markdown';
import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../../app/stores/app.ts';
import { isUpgradeAvailable, useReleaseStore, type ReleaseTab } from './store.ts';
import { clickUpgrade } from './ReleaseDialog.tsx';
import { safeUrl } from './markdown.ts';
import './release.css';

const markdownComponents: Components = {
  a: ({ href, children }) =>
    href ? (
      <a href={href} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  img: ({ src, alt }) => (src ? <img src={src} alt={alt ?? ''} referrerPolicy="no-referrer" loading="lazy" /> : null),
};

export function ReleaseNote({ body }: { body: string }) {
  return (
    <div className="release-note markdown-body" data-testid="release-note">
      <Markdown skipHtml urlTransform={safeUrl} components={markdownComponents}>
        {body}
      </Markdown>
    </div>
  );
}

export default function ReleaseDialogPanel() {
  const { t } = useTranslation('release');
  const location = useLocation();
  const { visible, tab, open, close, setTab } = useReleaseStore();
  const latest = useAppStore((s) => s.latestRelease);
  const version = useAppStore((s) => s.version);
  const upgradable = isUpgradeAvailable(latest, version);

  // Debug/test opener while the entry point is disabled: any layout URL with ?release=1 (or =how-to-upgrade).
  const debug = new URLSearchParams(location.search).get('release');
  useEffect(() => {
    if (debug === '1' || debug === 'release-note') open('release-note');
    else if (debug === 'how-to-upgrade') open('how-to-upgrade');
  }, [debug, open]);

  return (
    <Modal
      open={visible}
      onCancel={close}
      width={720}
      className="release-dialog"
      title={
        <span data-testid="release-title">
          {t('title')}
          {latest?.name ? ` ${latest.name}` : ''}
        </span>
      }
      footer={
        upgradable ? (
          <Button type="primary" icon={<CloudUploadOutlined />} onClick={clickUpgrade} data-testid="release-upgrade">
            {t('upgrade')}
          </Button>
        ) : null
      }
      destroyOnHidden
    >
      {latest && (
        <Typography.Paragraph type="secondary" className="release-versions">
          {upgradable
            ? t('available', { current: version, latest: latest.name })
            : t('upToDate', { current: version ?? '-' })}
        </Typography.Paragraph>
      )}
      <Tabs
        activeKey={tab}
        onChange={(k) => setTab(k as ReleaseTab)}
        items={[
          {
            key: 'release-note',
            label: <span data-testid="release-tab-note">{t('tabs.releaseNote')}</span>,
            children: latest?.body ? <ReleaseNote body={latest.body} /> : <Empty description={t('noRelease')} />,
          },
          {
            key: 'how-to-upgrade',
            label: <span data-testid="release-tab-upgrade">{t('tabs.howToUpgrade')}</span>,
            children: (
              <div className="how-to-upgrade" data-testid="how-to-upgrade">
                <Typography.Title level={5}>{t('howTo.backupTitle')}</Typography.Title>
                <Typography.Paragraph>{t('howTo.backup')}</Typography.Paragraph>
                <Typography.Title level={5}>{t('howTo.directTitle')}</Typography.Title>
                <Typography.Paragraph>{t('howTo.direct')}</Typography.Paragraph>
                <pre className="upgrade-cmd">{'git pull\nnpm ci\nnpm run build\nnpm start'}</pre>
              </div>
            ),
          },
        ]}
      />
    </Modal>
  );
}
