/** Upgrade dialog state: visible or hidden, tab release-note (default) or how-to-upgrade. */
import { create } from 'zustand';
import { isNewerVersion } from '@crawldeck/shared/core';
import type { LatestRelease } from '../../app/stores/app.ts';

export type ReleaseTab = 'release-note' | 'how-to-upgrade';

/**
 * The dialog's entry point is switched off for now: with this off no upgrade hint is shown in the navbar. The
 * dialog itself works and opens through openReleaseDialog() or the `?release=1` debug query.
 */
export const RELEASE_ENTRY_ENABLED = false;

interface ReleaseState {
  visible: boolean;
  tab: ReleaseTab;
  open: (tab?: ReleaseTab) => void;
  close: () => void;
  setTab: (tab: ReleaseTab) => void;
}

export const useReleaseStore = create<ReleaseState>((set) => ({
  visible: false,
  tab: 'release-note',
  open: (tab = 'release-note') => set({ visible: true, tab }),
  close: () => set({ visible: false }),
  setTab: (tab) => set({ tab }),
}));

export function openReleaseDialog(tab?: ReleaseTab): void {
  useReleaseStore.getState().open(tab);
}

/**
 * An upgrade is offered only when a latest release name exists, the running version is known and the latest is
 * greater, so a failed release lookup never nags the user.
 */
export function isUpgradeAvailable(
  latest: LatestRelease | null | undefined,
  current: string | null | undefined,
): boolean {
  return !!latest?.name && !!current && isNewerVersion(latest.name, current);
}
