import { useEffect } from 'react';
import { useTagsViewStore } from './stores/tagsView.ts';

/**
 * Names the tab of a detail view after its entity (a spider's name, a task's spider and id) instead of the
 * route's generic title, so several open spiders or tasks can be told apart.
 */
export function useViewLabel(path: string, label: string | undefined): void {
  useEffect(() => {
    if (label) useTagsViewStore.getState().setLabel(path, label);
  }, [path, label]);
}
