/** Breadcrumb: matched titled routes, prefixed with Home; last and 'noredirect' crumbs not clickable. */
import { Breadcrumb as AntBreadcrumb } from 'antd';
import { Link, useMatches } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { RouteHandle } from '../router.tsx';

interface Crumb {
  path: string;
  title: string;
  redirect?: string;
}

export function useCrumbs(): Crumb[] {
  const matches = useMatches();
  const crumbs: Crumb[] = [];
  for (const m of matches) {
    const h = m.handle as RouteHandle | undefined;
    if (!h?.meta?.title || h.meta.noBreadcrumb) continue;
    const path = m.pathname.replace(/\/+$/, '') || '/';
    const prev = crumbs[crumbs.length - 1];
    if (prev && prev.path === path && prev.title === h.meta.title) continue; // group + its index page
    crumbs.push({ path, title: h.meta.title, redirect: h.redirect });
  }
  if (crumbs.length && crumbs[0].path !== '/home') crumbs.unshift({ path: '/home', title: 'route:home' });
  return crumbs;
}

export default function Breadcrumb() {
  const { t } = useTranslation();
  const crumbs = useCrumbs();
  return (
    <AntBreadcrumb
      className="app-breadcrumb"
      items={crumbs.map((c, i) => {
        const clickable = i < crumbs.length - 1 && c.redirect !== 'noredirect';
        return {
          key: c.path + i,
          title: clickable ? (
            <Link to={c.path} className="crumb-link">
              {t(c.title)}
            </Link>
          ) : (
            <span className="no-redirect">{t(c.title)}</span>
          ),
        };
      })}
    />
  );
}
