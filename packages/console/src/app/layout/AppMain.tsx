/**
 * Main area: keep-alive of visited views (cached outlet elements by path, inactive ones rendered hidden) unless
 * meta.noCache, with a fade-slide transition on every navigation.
 */
import { useRef, type ReactElement } from 'react';
import { useLocation, useMatches, useOutlet } from 'react-router';
import type { RouteHandle } from '../router.tsx';
import { useTagsViewStore } from '../stores/tagsView.ts';

export default function AppMain() {
  const outlet = useOutlet();
  const location = useLocation();
  const matches = useMatches();
  const cachedViews = useTagsViewStore((s) => s.cachedViews);
  const refreshKeys = useTagsViewStore((s) => s.refreshKeys);
  const cache = useRef(new Map<string, ReactElement>());
  const current = location.pathname;
  const leaf = matches[matches.length - 1]?.handle as RouteHandle | undefined;
  const noCache = !!leaf?.meta?.noCache;

  const map = cache.current;
  for (const key of Array.from(map.keys())) {
    if (key !== current && !cachedViews.includes(key)) map.delete(key);
  }
  if (outlet && !noCache) map.set(current, outlet);
  else map.delete(current);

  return (
    <section className="app-main">
      {Array.from(map.entries()).map(([path, element]) => (
        <div
          key={`${path}#${refreshKeys[path] ?? 0}`}
          className="app-view"
          data-view={path}
          style={path === current ? undefined : { display: 'none' }}
        >
          {element}
        </div>
      ))}
      {(noCache || !outlet) && (
        <div key={`${current}#nocache#${refreshKeys[current] ?? 0}`} className="app-view" data-view={current}>
          {outlet}
        </div>
      )}
    </section>
  );
}
