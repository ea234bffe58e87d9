import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';

/**
 * The selected tab of a detail screen, kept in the URL as `?tab=` so that links and reloads open it. Detail
 * views stay mounted while hidden (keep-alive), so the URL is followed only while `active`.
 */
export function useUrlTab<T extends string>(tabs: readonly T[], active: boolean): [T, (key: string) => void] {
  const location = useLocation();
  const navigate = useNavigate();
  const parse = (search: string): T => {
    const v = new URLSearchParams(search).get('tab');
    return tabs.includes(v as T) ? (v as T) : tabs[0];
  };
  const [tab, setTab] = useState<T>(() => parse(location.search));
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
