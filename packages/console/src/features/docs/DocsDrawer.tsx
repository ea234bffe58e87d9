/**
 * The Related Documentation drawer's light half, mounted by the layout and the navbar: the navbar entry and a
 * placeholder that loads the drawer (tree, links) the first time it opens, by the entry, openDocsDrawer() or the
 * `?docs=1` debug query. Until then the console's first download carries none of it.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import { QuestionCircleOutlined } from '@ant-design/icons';
import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { DOCS_ENTRY_ENABLED, useDocsStore } from './store.ts';

const DocsDrawerPanel = lazy(() => import('./DocsDrawerPanel.tsx'));

/** Navbar entry; turned off by DOCS_ENTRY_ENABLED. */
export function DocsEntry() {
  const { t } = useTranslation('docs');
  const setVisible = useDocsStore((s) => s.setVisible);
  if (!DOCS_ENTRY_ENABLED) return null;
  return (
    <span className="right-menu-item docs-entry" onClick={() => setVisible(true)} data-testid="docs-entry">
      <QuestionCircleOutlined />
      <span className="right-menu-text">{t('title')}</span>
    </span>
  );
}

export default function DocsDrawer() {
  const visible = useDocsStore((s) => s.visible);
  const debug = new URLSearchParams(useLocation().search).get('docs') === '1';
  const [wanted, setWanted] = useState(false);
  useEffect(() => {
    if (visible || debug) setWanted(true);
  }, [visible, debug]);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <DocsDrawerPanel />
    </Suspense>
  );
}
