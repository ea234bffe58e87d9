import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';

/**
 * The selected tab of a detail screen, kept in the URL as `?tab=` so that links and reloads open it. Detail
 * views stay mounted while hidden (keep-alive), so the URL is followed only while `active`. Without `?tab=` the
 * screen opens on `fallback` (e.g. a running task's live log), else on the first tab.
 */
export function useUrlTab<T extends string>(
  tabs: readonly T[],
  active: boolean,
  fallback?: T,
): [T, (key: string) => void] {
  const location = useLocation();
  const navigate = useNavigate();
  const parse = (search: string): T | null => {
    const v = new URLSearchParams(search).get('tab');
    return tabs.includes(v as T) ? (v as T) : null;
  };
  const [chosen, setTab] = useState<T | null>(() => parse(location.search));
  const tab = chosen ?? fallback ?? tabs[0];
  useEffect(() => {
    if (active) setTab(parse(location.search));
    // parse depends only on `tabs`, a module constant of each screen
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active, location.search]);

  const selectTab = (key: string) => {
    setTab(key as T);
    const params = new URLSearchParams(location.search);
    params.set('tab', key);
    navigate({ pathname: location.pathname, search: `?${params.toString()}` }, { replace: true });
  };
  return [tab, selectTab];
}
