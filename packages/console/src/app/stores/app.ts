import { create } from 'zustand';
import Cookies from 'js-cookie';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@crawldeck/shared/core';
import type { LatestRelease } from '@crawldeck/shared';

export type Device = 'desktop' | 'mobile';

export type { LatestRelease } from '@crawldeck/shared';

export function storedLanguage(): Language {
  const l = localStorage.getItem('lang');
  return (LANGUAGES as readonly string[]).includes(l ?? '') ? (l as Language) : DEFAULT_LANGUAGE;
}

interface AppState {
  sidebar: { opened: boolean; withoutAnimation: boolean };
  device: Device;
  language: Language;
  version: string | null;
  latestRelease: LatestRelease | null;
  setting: Record<string, unknown> | null;
  toggleSidebar: () => void;
  closeSidebar: (withoutAnimation: boolean) => void;
  toggleDevice: (device: Device) => void;
  setLanguage: (lang: Language) => void;
  setVersion: (v: string) => void;
  setLatestRelease: (r: LatestRelease | null) => void;
  setSetting: (s: Record<string, unknown>) => void;
}

const cookie = Cookies.get('sidebarStatus');

export const useAppStore = create<AppState>((set, get) => ({
  sidebar: { opened: cookie === undefined ? true : cookie === '1', withoutAnimation: false },
  device: 'desktop',
  language: storedLanguage(),
  version: sessionStorage.getItem('v'),
  latestRelease: null,
  setting: null,
  toggleSidebar: () => {
    const opened = !get().sidebar.opened;
    Cookies.set('sidebarStatus', opened ? '1' : '0');
    set({ sidebar: { opened, withoutAnimation: false } });
  },
  closeSidebar: (withoutAnimation) => {
    Cookies.set('sidebarStatus', '0');
    set({ sidebar: { opened: false, withoutAnimation } });
  },
  toggleDevice: (device) => set({ device }),
  setLanguage: (language) => {
    localStorage.setItem('lang', language);
    set({ language });
  },
  setVersion: (version) => {
    sessionStorage.setItem('v', version);
    set({ version });
  },
  setLatestRelease: (latestRelease) => set({ latestRelease }),
  setSetting: (setting) => set({ setting }),
}));
