/**
 * Where a list walked by cursor stands: the cursor of the page shown (none on the first page) and the page number
 * while it is known. A screen passes `cursor` to its query and spreads `pagerProps(answer)` into CursorPager.
 * The number shown is derived from the answer: a page without `prev` is the first, whatever way it was reached.
 */
import { useCallback, useState } from 'react';
import type { CursorPagerProps } from './CursorPager.tsx';

/** The paging fields of a keyset list answer. */
export interface KeysetPage {
  total: number;
  capped: boolean;
  next: string | null;
  prev: string | null;
  last: string | null;
}

export function useCursorPaging(pageSize: number, onMove?: () => void) {
  const [at, setAt] = useState<{ cursor?: string; no: number | null }>({ no: 1 });
  /** Back to the first page (a filter changed). */
  const reset = useCallback(() => setAt({ no: 1 }), []);

  function pagerProps(page: KeysetPage): CursorPagerProps {
    const shown = page.prev ? at.no : 1;
    const go = (cursor: string | null, no: number | null) => {
      setAt({ cursor: no === 1 ? undefined : (cursor ?? undefined), no });
      onMove?.();
    };
    return {
      total: page.total,
      capped: page.capped,
      page: shown,
      pageSize,
      hasPrev: !!page.prev,
      hasNext: !!page.next,
      onFirst: () => go(null, 1),
      onPrev: () => go(page.prev, shown && shown > 1 ? shown - 1 : null),
      onNext: () => go(page.next, shown ? shown + 1 : null),
      onLast: () => go(page.last, page.capped ? null : Math.max(1, Math.ceil(page.total / pageSize))),
    };
  }
  return { cursor: at.cursor, reset, pagerProps };
}
