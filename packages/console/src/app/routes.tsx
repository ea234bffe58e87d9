/**
 * The ONE route table. It drives the router, the sidebar, the breadcrumb, the tab
 * strip, page titles and the admin-only menu filter. Screens are lazily loaded from src/features/.
 */
import type { ComponentType } from 'react';
import {
  ApartmentOutlined,
  BugOutlined,
  ClockCircleOutlined,
  FolderOutlined,
  HomeOutlined,
  SettingOutlined,
  ShopOutlined,
  TeamOutlined,
  TrophyOutlined,
  UnorderedListOutlined,
} from '@ant-design/icons';
import { CHUNK_LOAD_TIMEOUT_MS } from '@crawldeck/shared/core';

export interface RouteMeta {
  /** i18n key, e.g. 'route:spiders'. Views without a title get no tab, crumb or title suffix. */
  title?: string;
  icon?: ComponentType;
  /** Pinned tab: always present in the tab strip, cannot be closed. */
  affix?: boolean;
  /** Not kept alive when left. */
  noCache?: boolean;
  /** Not shown in the breadcrumb. */
  noBreadcrumb?: boolean;
}

export type LazyPage = () => Promise<{ default: ComponentType }>;

export interface AppRoute {
  /** Absolute for top-level routes, relative ('' = index, ':id') for children. External links allowed. */
  path: string;
  name?: string;
  /** Not listed in the sidebar. */
  hidden?: boolean;
  /** Show as a submenu even with a single visible child. */
  alwaysShow?: boolean;
  /** Defined but not active: neither routed nor listed (spider market, challenges). */
  disabled?: boolean;
  /** Index redirect target; 'noredirect' makes the breadcrumb crumb not clickable. */
  redirect?: string;
  /** Top-level route rendered inside the common layout (sidebar, navbar, tabs). */
  layout?: boolean;
  meta?: RouteMeta;
  component?: LazyPage;
  children?: AppRoute[];
}

/** Paths only admins see in the menu. The role-based route guard itself is disabled. */
export const ADMIN_ONLY_PATHS = ['/users'];

/** Reachable without a token. */
export const PUBLIC_PATHS = ['/login', '/signup'];

/** Dynamic import that gives up after 120 s (a chunk that never arrives shows the error screen). */
function page(load: LazyPage): LazyPage {
  return () =>
    Promise.race([
      load(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('Chunk load timeout')), CHUNK_LOAD_TIMEOUT_MS),
      ),
    ]);
}

const LoginPage = page(() => import('../features/login/LoginPage.tsx'));

export const routes: AppRoute[] = [
  { path: '/login', name: 'Login', hidden: true, meta: { title: 'route:login' }, component: LoginPage },
  { path: '/signup', name: 'Signup', hidden: true, meta: { title: 'route:signup' }, component: LoginPage },
  {
    path: '/404',
    name: 'NotFound',
    hidden: true,
    meta: { title: 'route:notFound' },
    component: page(() => import('../features/error/NotFoundPage.tsx')),
  },
  {
    path: '/',
    layout: true,
    redirect: '/home',
    children: [
      {
        path: 'home',
        name: 'Home',
        meta: { title: 'route:home', icon: HomeOutlined, affix: true },
        component: page(() => import('../features/home/HomePage.tsx')),
      },
    ],
  },
  {
    path: '/projects',
    layout: true,
    meta: { title: 'route:projects', icon: FolderOutlined },
    children: [
      {
        path: '',
        name: 'ProjectList',
        meta: { title: 'route:projects', icon: FolderOutlined },
        component: page(() => import('../features/projects/ProjectListPage.tsx')),
      },
    ],
  },
  {
    path: '/spiders',
    layout: true,
    meta: { title: 'route:spiders', icon: BugOutlined },
    children: [
      {
        path: '',
        name: 'SpiderList',
        meta: { title: 'route:spiders', icon: BugOutlined },
        component: page(() => import('../features/spiders/SpiderListPage.tsx')),
      },
      {
        path: ':id',
        name: 'SpiderDetail',
        hidden: true,
        meta: { title: 'route:spiderDetail' },
        component: page(() => import('../features/spiders/SpiderDetailPage.tsx')),
      },
    ],
  },
  {
    path: '/tasks',
    layout: true,
    meta: { title: 'route:tasks', icon: UnorderedListOutlined },
    children: [
      {
        path: '',
        name: 'TaskList',
        meta: { title: 'route:tasks', icon: UnorderedListOutlined },
        component: page(() => import('../features/tasks/TaskListPage.tsx')),
      },
      {
        path: ':id',
        name: 'TaskDetail',
        hidden: true,
        meta: { title: 'route:taskDetail' },
        component: page(() => import('../features/tasks/TaskDetailPage.tsx')),
      },
    ],
  },
  {
    path: '/schedules',
    layout: true,
    meta: { title: 'route:schedules', icon: ClockCircleOutlined },
    children: [
      {
        path: '',
        name: 'ScheduleList',
        meta: { title: 'route:schedules', icon: ClockCircleOutlined },
        component: page(() => import('../features/schedules/ScheduleListPage.tsx')),
      },
    ],
  },
  {
    path: '/nodes',
    layout: true,
    meta: { title: 'route:nodes', icon: ApartmentOutlined },
    children: [
      {
        path: '',
        name: 'NodeList',
        meta: { title: 'route:nodes', icon: ApartmentOutlined },
        component: page(() => import('../features/nodes/NodeListPage.tsx')),
      },
      {
        path: ':id',
        name: 'NodeDetail',
        hidden: true,
        meta: { title: 'route:nodeDetail' },
        component: page(() => import('../features/nodes/NodeDetailPage.tsx')),
      },
    ],
  },
  {
    path: '/market',
    layout: true,
    disabled: true,
    meta: { title: 'route:market', icon: ShopOutlined },
    children: [{ path: '', name: 'SpiderMarket', meta: { title: 'route:market', icon: ShopOutlined } }],
  },
  {
    path: '/challenges',
    layout: true,
    disabled: true,
    meta: { title: 'route:challenges', icon: TrophyOutlined },
    children: [{ path: '', name: 'ChallengeList', meta: { title: 'route:challenges', icon: TrophyOutlined } }],
  },
  {
    path: '/disclaimer',
    layout: true,
    hidden: true,
    children: [
      {
        path: '',
        name: 'Disclaimer',
        meta: { title: 'route:disclaimer' },
        component: page(() => import('../features/disclaimer/DisclaimerPage.tsx')),
      },
    ],
  },
  {
    path: '/feedback',
    layout: true,
    hidden: true,
    children: [
      {
        path: '',
        name: 'Feedback',
        meta: { title: 'route:feedback' },
        component: page(() => import('../features/feedback/FeedbackPage.tsx')),
      },
    ],
  },
  {
    path: '/sites',
    layout: true,
    hidden: true,
    children: [
      {
        path: '',
        name: 'Sites',
        meta: { title: 'sites:title' },
        component: page(() => import('../features/sites/SitesPage.tsx')),
      },
    ],
  },
  {
    path: '/users',
    layout: true,
    meta: { title: 'route:users', icon: TeamOutlined },
    children: [
      {
        path: '',
        name: 'UserList',
        meta: { title: 'route:users', icon: TeamOutlined },
        component: page(() => import('../features/users/UserListPage.tsx')),
      },
    ],
  },
  {
    path: '/setting',
    layout: true,
    meta: { title: 'route:setting', icon: SettingOutlined },
    children: [
      {
        path: '',
        name: 'Setting',
        meta: { title: 'route:setting', icon: SettingOutlined },
        component: page(() => import('../features/setting/SettingPage.tsx')),
      },
    ],
  },
];

/** Join a parent and a child path ('' = the parent itself). External links are kept as they are. */
export function resolvePath(base: string, child: string): string {
  if (/^(https?:|mailto:|tel:)/.test(child)) return child;
  if (!child) return base;
  if (child.startsWith('/')) return child;
  return `${base.replace(/\/+$/, '')}/${child}`;
}

/** Top-level routes a role sees in the menu: active, and not admin-only unless admin. */
export function accessibleRoutes(role: string | null | undefined, table: AppRoute[] = routes): AppRoute[] {
  return table.filter((r) => !r.disabled && (role === 'admin' || !ADMIN_ONLY_PATHS.includes(r.path)));
}

/** Routes pinned as affix tabs, with their full paths. */
export function affixRoutes(table: AppRoute[] = routes, base = '/'): Array<{ path: string; route: AppRoute }> {
  const out: Array<{ path: string; route: AppRoute }> = [];
  for (const r of table) {
    if (r.disabled) continue;
    const full = resolvePath(base, r.path);
    if (r.meta?.affix) out.push({ path: full, route: r });
    if (r.children) out.push(...affixRoutes(r.children, full));
  }
  return out;
}
