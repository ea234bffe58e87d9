/**
 * Tab strip of visited views, 34 px: detail views titled with their entity's name, affix tabs always present, close icon (not for affix), middle-click
 * close, right-click menu at the click point (Refresh, Close, Close Others, Close All; min width 105, offset 15).
 */
import { useEffect, useRef, useState, type MouseEvent } from 'react';
import { CloseOutlined } from '@ant-design/icons';
import { useLocation, useMatches, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { CONTEXT_MENU_MIN_WIDTH, CONTEXT_MENU_OFFSET } from '@crawldeck/shared/core';
import { affixRoutes } from '../routes.tsx';
import type { RouteHandle } from '../router.tsx';
import { useTagsViewStore, type VisitedView } from '../stores/tagsView.ts';

export default function TagsView() {
  const { t } = useTranslation(['layout']);
  const location = useLocation();
  const matches = useMatches();
  const navigate = useNavigate();
  const visitedViews = useTagsViewStore((s) => s.visitedViews);
  const labels = useTagsViewStore((s) => s.labels);
  const { addView, delView, delOthersViews, delAllViews, refreshView } = useTagsViewStore.getState();
  const containerRef = useRef<HTMLDivElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const [menu, setMenu] = useState<{ left: number; top: number; view: VisitedView } | null>(null);

  // Affix tabs are always present (added again after "close all" empties the strip).
  const noViews = visitedViews.length === 0;
  useEffect(() => {
    for (const { path, route } of affixRoutes()) {
      if (!route.meta?.title) continue;
      addView({
        path,
        query: '',
        fullPath: path,
        title: route.meta.title,
        name: route.name,
        meta: { affix: true, noCache: route.meta.noCache },
      });
    }
  }, [noViews, addView]);

  // The current route becomes a tab; views without a title are dropped ('no-name').
  const leaf = matches[matches.length - 1]?.handle as RouteHandle | undefined;
  useEffect(() => {
    const title = leaf?.meta?.title;
    if (!title) return;
    addView({
      path: location.pathname,
      query: location.search,
      fullPath: location.pathname + location.search,
      title,
      name: leaf?.name,
      meta: { affix: leaf?.meta?.affix, noCache: leaf?.meta?.noCache },
    });
  }, [location.pathname, location.search, leaf, addView]);

  // Keep the active tab in view.
  useEffect(() => {
    const el = scrollRef.current?.querySelector<HTMLElement>('.tags-view-item.active');
    el?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [location.pathname, visitedViews.length]);

  // Any click elsewhere closes the context menu.
  useEffect(() => {
    if (!menu) return;
    const close = () => setMenu(null);
    document.addEventListener('click', close);
    return () => document.removeEventListener('click', close);
  }, [menu]);

  const isActive = (v: VisitedView) => v.path === location.pathname;

  const toLastView = (views: VisitedView[]) => {
    const last = views[views.length - 1];
    navigate(last ? last.fullPath : '/');
  };

  const closeView = (view: VisitedView) => {
    if (view.meta.affix) return;
    delView(view.path);
    if (isActive(view)) toLastView(useTagsViewStore.getState().visitedViews);
  };

  const closeOthers = (view: VisitedView) => {
    if (!isActive(view)) navigate(view.fullPath);
    delOthersViews(view.path);
  };

  const closeAll = (view: VisitedView) => {
    delAllViews();
    const remaining = useTagsViewStore.getState().visitedViews;
    if (remaining.some((v) => v.path === location.pathname)) return;
    toLastView(remaining);
    void view;
  };

  const refresh = (view: VisitedView) => {
    refreshView(view.path);
    if (!isActive(view)) navigate(view.fullPath);
  };

  const openMenu = (e: MouseEvent, view: VisitedView) => {
    e.preventDefault();
    const box = containerRef.current!.getBoundingClientRect();
    const maxLeft = box.width - CONTEXT_MENU_MIN_WIDTH;
    const left = Math.min(e.clientX - box.left + CONTEXT_MENU_OFFSET, maxLeft);
    setMenu({ left, top: e.clientY - box.top, view });
  };

  return (
    <div className="tags-view-container" ref={containerRef}>
      <div
        className="tags-view-wrapper"
        ref={scrollRef}
        onWheel={(e) => {
          if (scrollRef.current) scrollRef.current.scrollLeft += e.deltaY;
        }}
      >
        {visitedViews.map((v) => (
          <span
            key={v.path}
            className={`tags-view-item${isActive(v) ? ' active' : ''}${v.meta.affix ? ' affix' : ''}`}
            data-path={v.path}
            role="tab"
            aria-selected={isActive(v)}
            onClick={() => navigate(v.fullPath)}
            onMouseDown={(e) => {
              if (e.button === 1) e.preventDefault(); // no autoscroll
            }}
            onMouseUp={(e) => {
              if (e.button === 1) closeView(v);
            }}
            onContextMenu={(e) => openMenu(e, v)}
          >
            <span className="tags-view-title">{labels[v.path] ?? t(v.title)}</span>
            {!v.meta.affix && (
              <CloseOutlined
                className="tags-view-close"
                onClick={(e) => {
                  e.stopPropagation();
                  closeView(v);
                }}
              />
            )}
          </span>
        ))}
      </div>
      {menu && (
        <ul
          className="contextmenu"
          style={{ left: menu.left, top: menu.top, minWidth: CONTEXT_MENU_MIN_WIDTH }}
          role="menu"
        >
          <li role="menuitem" onClick={() => refresh(menu.view)}>
            {t('layout:tags.refresh')}
          </li>
          {!menu.view.meta.affix && (
            <li role="menuitem" onClick={() => closeView(menu.view)}>
              {t('layout:tags.close')}
            </li>
          )}
          <li role="menuitem" onClick={() => closeOthers(menu.view)}>
            {t('layout:tags.closeOthers')}
          </li>
          <li role="menuitem" onClick={() => closeAll(menu.view)}>
            {t('layout:tags.closeAll')}
          </li>
        </ul>
      )}
    </div>
  );
}
