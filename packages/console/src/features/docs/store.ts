/** Related Documentation drawer state. Opening/closing sends docs_drawer_open / docs_drawer_close. */
import { create } from 'zustand';
import { sendEvent } from '../../app/stats.ts';

/**
 * The drawer's entry point is switched off for now: with this off no entry is shown in the navbar. The drawer
 * works and opens through openDocsDrawer() or the `?docs=1` debug query.
 */
export const DOCS_ENTRY_ENABLED = false;

interface DocsState {
  visible: boolean;
  setVisible: (visible: boolean) => void;
}

export const useDocsStore = create<DocsState>((set, get) => ({
  visible: false,
  setVisible: (visible) => {
    if (get().visible === visible) return;
    set({ visible });
    void sendEvent(visible ? 'docs_drawer_open' : 'docs_drawer_close');
  },
}));

export function openDocsDrawer(): void {
  useDocsStore.getState().setVisible(true);
}
