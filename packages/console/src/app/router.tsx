/** Builds the react-router data router from the route table (routes.tsx). */
import type { ComponentType } from 'react';
import { Navigate, createBrowserRouter, type RouteObject } from 'react-router';
import { routes, resolvePath, type AppRoute, type RouteMeta } from './routes.tsx';
import AppRoot from './AppRoot.tsx';
import Layout from './layout/Layout.tsx';
import RouteError from './RouteError.tsx';

export interface RouteHandle {
  name?: string;
  meta?: RouteMeta;
  redirect?: string;
  /** Full path of the table entry, e.g. '/spiders/:id'. */
  fullPath: string;
}

/**
 * The screen of a route, or, when its code cannot be downloaded (network down, a new release replaced the chunks),
 * a screen that fails while rendering, so the route's error screen shows inside the shell. A rejected route load
 * would leave the router treating the route as still loading, and nothing at all would be drawn.
 */
async function screenOrFailure(load: NonNullable<AppRoute['component']>): Promise<ComponentType> {
  try {
    return (await load()).default;
  } catch (err) {
    return function ScreenLoadFailed(): never {
      throw err;
    };
  }
}

function toRouteObject(route: AppRoute, base: string): RouteObject | null {
  if (route.disabled) return null;
  const fullPath = resolvePath(base, route.path);
  const handle: RouteHandle = { name: route.name, meta: route.meta, redirect: route.redirect, fullPath };
  const load = route.component;
  const lazy = load ? async () => ({ Component: await screenOrFailure(load) }) : undefined;
  const errorElement = load ? <RouteError /> : undefined;
  if (route.path === '' && !route.children) return { index: true, handle, lazy, errorElement };
  const children: RouteObject[] = [];
  if (route.redirect && route.redirect !== 'noredirect') {
    children.push({ index: true, element: <Navigate to={route.redirect} replace /> });
  }
  for (const c of route.children ?? []) {
    const o = toRouteObject(c, fullPath);
    if (o) children.push(o);
  }
  return { path: route.path, handle, lazy, errorElement, children: children.length ? children : undefined };
}

export function buildRouteObjects(table: AppRoute[] = routes): RouteObject[] {
  const outside = table.filter((r) => !r.layout && !/^(https?:|mailto:|tel:)/.test(r.path));
  const inside = table.filter((r) => r.layout && !/^(https?:|mailto:|tel:)/.test(r.path));
  const compact = (xs: Array<RouteObject | null>) => xs.filter((x): x is RouteObject => x !== null);
  return [
    {
      element: <AppRoot />,
      errorElement: <RouteError />,
      children: [
        ...compact(outside.map((r) => toRouteObject(r, '/'))),
        { element: <Layout />, children: compact(inside.map((r) => toRouteObject(r, '/'))) },
        { path: '*', element: <Navigate to="/404" replace /> },
      ],
    },
  ];
}

export const router = createBrowserRouter(buildRouteObjects());
