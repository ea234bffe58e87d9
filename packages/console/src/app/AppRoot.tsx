/** Root route element: token guard, page title and the after-navigation calls (spec §2, §4). */
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useMatches } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PRODUCT_NAME } from '@crawldeck/shared/core';
import { PUBLIC_PATHS } from './routes.tsx';
import type { RouteHandle } from './router.tsx';
import { useUserStore } from './stores/user.ts';
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
  const { t, i18n } = useTranslation();
  const blocked = !token && !PUBLIC_PATHS.includes(location.pathname);

  useEffect(() => {
    if (blocked) return;
    document.title = title ? `${PRODUCT_NAME} - ${t(title)}` : PRODUCT_NAME;
  }, [title, t, i18n.language, blocked]);

  useEffect(() => {
    if (!blocked) afterNavigation(location.pathname);
  }, [location.pathname, blocked]);

  if (blocked) return <Navigate to="/login" replace />;
  return <Outlet />;
}
