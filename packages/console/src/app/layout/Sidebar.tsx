/** Sidebar menu built from the route table: single entries, nested submenus, alwaysShow, external links. */
import { useMemo, type ReactNode } from 'react';
import { Menu, type MenuProps } from 'antd';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { isExternalLink, PRODUCT_NAME, VERSION_LABEL } from '@crawldeck/shared/core';
import { accessibleRoutes, resolvePath, routes, type AppRoute } from '../routes.tsx';
import { useAppStore } from '../stores/app.ts';
import { useUserStore } from '../stores/user.ts';

type MenuItem = Required<MenuProps>['items'][number];

function icon(route: AppRoute): ReactNode {
  const Icon = route.meta?.icon;
  return Icon ? <Icon /> : undefined;
}

function visibleChildren(route: AppRoute): AppRoute[] {
  return (route.children ?? []).filter((c) => !c.hidden && !c.disabled);
}

/** Menu items of a route list: a single visible child → one entry; several (or alwaysShow) → submenu. */
export function buildMenu(list: AppRoute[], base: string, t: (k: string) => string): MenuItem[] {
  const items: MenuItem[] = [];
  for (const route of list) {
    if (route.hidden || route.disabled) continue;
    const full = resolvePath(base, route.path);
    const shown = visibleChildren(route);
    // External links (isExternalLink) are opened in a new window by the menu's onClick.
    const label = (r: AppRoute) => t(r.meta?.title ?? '');
    if (shown.length === 1 && !route.alwaysShow && !shown[0].children?.length) {
      const child = shown[0];
      const path = resolvePath(full, child.path);
      if (!child.meta?.title) continue;
      items.push({ key: path, icon: icon(child) ?? icon(route), label: label(child) });
    } else if (shown.length === 0 && !route.children) {
      if (!route.meta?.title) continue;
      items.push({ key: full, icon: icon(route), label: label(route) });
    } else if (shown.length > 0) {
      items.push({
        key: `sub:${full}`,
        icon: icon(route),
        label: t(route.meta?.title ?? ''),
        children: buildMenu(shown, full, t),
      });
    }
  }
  return items;
}

export default function Sidebar() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const opened = useAppStore((s) => s.sidebar.opened);
  const device = useAppStore((s) => s.device);
  const role = useUserStore((s) => s.role);
  const collapsed = !opened && device !== 'mobile';
  const items = useMemo(() => buildMenu(accessibleRoutes(role, routes), '/', t), [role, t]);
  const active = '/' + (location.pathname.split('/')[1] ?? '');

  const onClick: MenuProps['onClick'] = ({ key }) => {
    if (isExternalLink(key)) {
      window.open(key, '_blank', 'noopener');
      return;
    }
    navigate(key);
  };

  return (
    <aside className="sidebar-container" data-collapsed={collapsed ? '1' : '0'}>
      <div className="sidebar-logo" onClick={() => navigate('/home')}>
        <span className="logo-mark">CD</span>
        <span className="logo-title">{PRODUCT_NAME}</span>
        <span className="logo-version">{VERSION_LABEL}</span>
      </div>
      <div className="sidebar-menu">
        <Menu
          mode="inline"
          theme="dark"
          inlineCollapsed={collapsed}
          selectedKeys={[active]}
          items={items}
          onClick={onClick}
        />
      </div>
    </aside>
  );
}
