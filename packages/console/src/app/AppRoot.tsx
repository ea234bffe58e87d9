/** Root route element: token guard, page title (a detail view's entity name) and the after-navigation calls. */
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useMatches } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PRODUCT_NAME } from '@crawldeck/shared/core';
import { PUBLIC_PATHS } from './routes.tsx';
import type { RouteHandle } from './router.tsx';
import { useUserStore } from './stores/user.ts';
import { useTagsViewStore } from './stores/tagsView.ts';
import { afterNavigation } from './startup.ts';

export function useRouteTitle(): string | undefined {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const title = (matches[i].handle as RouteHandle | undefined)?.meta?.title;
    if (title) return title;
  }
  return undefined;
}

export default function AppRoot() {
  const location = useLocation();
  const token = useUserStore((s) => s.token);
  const title = useRouteTitle();
  const label = useTagsViewStore((s) => s.labels[location.pathname]);
  const { t, i18n } = useTranslation();
  const blocked = !token && !PUBLIC_PATHS.includes(location.pathname);

  useEffect(() => {
    if (blocked) return;
    const shown = label ?? (title ? t(title) : '');
    document.title = shown ? `${PRODUCT_NAME} - ${shown}` : PRODUCT_NAME;
  }, [title, label, t, i18n.language, blocked]);

  useEffect(() => {
    if (!blocked) afterNavigation(location.pathname);
  }, [location.pathname, blocked]);

  if (blocked) return <Navigate to="/login" replace />;
  return <Outlet />;
}
