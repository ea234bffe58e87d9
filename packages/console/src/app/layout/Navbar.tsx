/**
 * Top navbar, 50 px: hamburger, breadcrumb, discussion group popover, the language dropdown and the user dropdown
 * (Feedback, Disclaimer, Logout).
 */
import { Dropdown, Popover } from 'antd';
import {
  CommentOutlined,
  DownOutlined,
  GlobalOutlined,
  LogoutOutlined,
  MenuFoldOutlined,
  MenuUnfoldOutlined,
  MessageOutlined,
  SafetyCertificateOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, QR_IMAGE_WIDTH, type Language } from '@crawldeck/shared/core';
import { useAppStore } from '../stores/app.ts';
import { useUserStore } from '../stores/user.ts';
import { switchLanguage } from '../language.ts';
import { logout } from '../startup.ts';
import Breadcrumb from './Breadcrumb.tsx';
import qrUrl from '../../assets/discussion-group-qr.svg';
import { UpgradeHint } from '../../features/release/ReleaseDialog.tsx';
import { DocsEntry } from '../../features/docs/DocsDrawer.tsx';

export default function Navbar() {
  const { t } = useTranslation(['layout', 'common']);
  const navigate = useNavigate();
  const opened = useAppStore((s) => s.sidebar.opened);
  const toggleSidebar = useAppStore((s) => s.toggleSidebar);
  const language = useAppStore((s) => s.language);
  const username = useUserStore((s) => s.user_info?.username);

  const groupContent = (
    <div className="group-popover" style={{ width: QR_IMAGE_WIDTH }}>
      <p className="group-text">{t('layout:joinGroupText')}</p>
      <img src={qrUrl} width={QR_IMAGE_WIDTH} alt={t('layout:qrAlt')} className="group-qr" />
    </div>
  );

  return (
    <div className="navbar">
      <button
        type="button"
        className="hamburger-container"
        aria-label={t('layout:toggleSidebar')}
        title={t('layout:toggleSidebar')}
        onClick={toggleSidebar}
      >
        {opened ? <MenuFoldOutlined /> : <MenuUnfoldOutlined />}
      </button>
      <Breadcrumb />
      <div className="right-menu">
        <UpgradeHint />
        <DocsEntry />
        <Popover content={groupContent} title={t('layout:joinGroup')} trigger="hover" placement="bottomRight">
          <span className="right-menu-item group-entry">
            <MessageOutlined />
            <span className="right-menu-text">{t('layout:joinGroup')}</span>
          </span>
        </Popover>
        <Dropdown
          trigger={['click']}
          menu={{
            selectable: true,
            selectedKeys: [language],
            items: LANGUAGES.map((l) => ({ key: l, label: <span data-lang={l}>{t(`common:languages.${l}`)}</span> })),
            onClick: ({ key }) => switchLanguage(key as Language),
          }}
        >
          <span className="right-menu-item lang-entry" data-testid="language-dropdown">
            <GlobalOutlined />
            <span className="right-menu-text">{t(`common:languages.${language}`)}</span>
            <DownOutlined className="caret" />
          </span>
        </Dropdown>
        <Dropdown
          trigger={['click']}
          menu={{
            items: [
              {
                key: 'feedback',
                icon: <CommentOutlined />,
                label: <span data-testid="menu-feedback">{t('route:feedback')}</span>,
              },
              {
                key: 'disclaimer',
                icon: <SafetyCertificateOutlined />,
                label: <span data-testid="menu-disclaimer">{t('route:disclaimer')}</span>,
              },
              { type: 'divider' },
              { key: 'logout', icon: <LogoutOutlined />, label: t('layout:logout') },
            ],
            onClick: ({ key }) => {
              if (key === 'logout') void logout((to) => navigate(to));
              else navigate(`/${key}`);
            },
          }}
        >
          <span className="right-menu-item user-entry" data-testid="user-dropdown">
            <UserOutlined />
            <span className="right-menu-text username">{username || t('layout:user')}</span>
            <DownOutlined className="caret" />
          </span>
        </Dropdown>
      </div>
    </div>
  );
}
