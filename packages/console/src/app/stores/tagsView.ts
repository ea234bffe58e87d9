import { create } from 'zustand';

/** A visited tab: path, query, fullPath, title (i18n key), meta.affix. */
export interface VisitedView {
  path: string;
  query: string;
  fullPath: string;
  title: string;
  name?: string;
  meta: { affix?: boolean; noCache?: boolean };
}

interface TagsViewState {
  visitedViews: VisitedView[];
  /** Paths whose rendered view is kept alive (views without meta.noCache). */
  cachedViews: string[];
  /** Bumped by "Refresh" to remount a view. */
  refreshKeys: Record<string, number>;
  addView: (view: VisitedView) => void;
  delView: (path: string) => void;
  delOthersViews: (path: string) => void;
  delAllViews: () => void;
  /** Remove every tab including affix ones (logout). */
  reset: () => void;
  refreshView: (path: string) => void;
  /** Names of the entities detail tabs show (spider name, task), by path: set once the entity has loaded. */
  labels: Record<string, string>;
  setLabel: (path: string, label: string) => void;
}

export const useTagsViewStore = create<TagsViewState>((set) => ({
  visitedViews: [],
  cachedViews: [],
  refreshKeys: {},
  labels: {},
  setLabel: (path, label) => set((s) => (s.labels[path] === label ? s : { labels: { ...s.labels, [path]: label } })),
  addView: (view) =>
    set((s) => {
      const i = s.visitedViews.findIndex((v) => v.path === view.path);
      const visitedViews = [...s.visitedViews];
      if (i >= 0) visitedViews[i] = { ...visitedViews[i], ...view, meta: { ...visitedViews[i].meta, ...view.meta } };
      else visitedViews.push(view);
      const cachedViews =
        !view.meta.noCache && !s.cachedViews.includes(view.path) ? [...s.cachedViews, view.path] : s.cachedViews;
      return { visitedViews, cachedViews };
    }),
  delView: (path) =>
    set((s) => ({
      visitedViews: s.visitedViews.filter((v) => v.path !== path),
      cachedViews: s.cachedViews.filter((p) => p !== path),
    })),
  delOthersViews: (path) =>
    set((s) => ({
      visitedViews: s.visitedViews.filter((v) => v.meta.affix || v.path === path),
      cachedViews: s.cachedViews.filter((p) => p === path || s.visitedViews.some((v) => v.path === p && v.meta.affix)),
    })),
  delAllViews: () =>
    set((s) => {
      const visitedViews = s.visitedViews.filter((v) => v.meta.affix);
      return { visitedViews, cachedViews: s.cachedViews.filter((p) => visitedViews.some((v) => v.path === p)) };
    }),
  reset: () => set({ visitedViews: [], cachedViews: [], refreshKeys: {}, labels: {} }),
  refreshView: (path) => set((s) => ({ refreshKeys: { ...s.refreshKeys, [path]: (s.refreshKeys[path] ?? 0) + 1 } })),
}));
