/** Start-up, after-navigation and logout sequences. */
import { get, post, put } from '../api/request.ts';
import { sendEvent } from './stats.ts';
import type { LatestReleaseAnswer } from '@crawldeck/shared';
import { useAppStore } from './stores/app.ts';
import { useUserStore, type UserInfo } from './stores/user.ts';
import { useTagsViewStore } from './stores/tagsView.ts';

function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // Fallback for insecure contexts (plain http on a LAN address): RFC 4122 v4 layout from getRandomValues.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** uid (long-term, localStorage) and sid (per session, sessionStorage), created if missing. */
export function ensureIds(): void {
  if (!localStorage.getItem('uid')) localStorage.setItem('uid', uuid());
  if (!sessionStorage.getItem('sid')) sessionStorage.setItem('sid', uuid());
}

export function removeLoadingPlaceholder(): void {
  const el = document.getElementById('app-loading');
  if (!el) return;
  el.style.opacity = '0';
  setTimeout(() => el.remove(), 300);
}

export async function loadVersion(): Promise<void> {
  try {
    const res = await get<string>('/version');
    if (typeof res.data === 'string') useAppStore.getState().setVersion(res.data);
  } catch {
    /* toast already shown */
  }
}

let settingsLoaded = false;
export async function loadSetting(): Promise<void> {
  try {
    const res = await get<Record<string, unknown>>('/setting');
    const setting = res.data ?? {};
    useAppStore.getState().setSetting(setting);
    if (!settingsLoaded) {
      settingsLoaded = true;
      if (localStorage.getItem('enableTutorial') === null) {
        localStorage.setItem('enableTutorial', setting.enable_tutorial === 'Y' ? '1' : '0');
      }
    }
  } catch {
    /* toast already shown */
  }
}

export async function loadLatestRelease(): Promise<void> {
  try {
    // Without a configured release source the master answers `configured: false`: nothing to show.
    const res = await get<LatestReleaseAnswer>('/releases/latest', undefined, { silent: true });
    const answer = res.data;
    if (answer?.configured && answer.name)
      useAppStore.getState().setLatestRelease({ name: answer.name, body: answer.body ?? '' });
  } catch {
    // no release information: store nothing
  }
}

export async function loadUserInfo(): Promise<UserInfo | null> {
  try {
    const res = await get<UserInfo>('/me');
    useUserStore.getState().setUserInfo(res.data);
    return res.data;
  } catch {
    return null;
  }
}

/**
 * Console start-up: browser ids and the master's version; when signed in, the latest release, the user's info
 * before the loading placeholder goes (so the first screen knows the role), then the `visit` usage event.
 */
export async function startup(): Promise<void> {
  ensureIds();
  void loadVersion();
  if (useUserStore.getState().token) {
    void loadLatestRelease(); // the release endpoint needs a session; after a login it is fetched there
    await loadUserInfo();
    removeLoadingPlaceholder();
    await sendEvent('visit');
  } else {
    removeLoadingPlaceholder();
  }
}

/** After every navigation: settings, version, page view. */
export function afterNavigation(path: string): void {
  void loadSetting();
  void loadVersion();
  void sendEvent('page_view', { path });
}

/** Logout: event, POST /logout (failure ignored), clear session and tabs, go to /login. */
export async function logout(navigate: (to: string) => void): Promise<void> {
  await sendEvent('logout');
  try {
    await post('/logout', undefined, { silent: true });
  } catch {
    /* ignored */
  }
  useUserStore.getState().clear();
  useTagsViewStore.getState().reset();
  navigate('/login');
}

/** Log in and store the token; then load user info. Throws ApiRequestError on failure. */
export async function login(username: string, password: string): Promise<void> {
  const res = await post<string>('/login', { username: username.trim(), password }, { silent: true });
  useUserStore.getState().setToken(res.data);
  await loadUserInfo();
  void loadLatestRelease();
}

/** Register (PUT /users). Throws ApiRequestError with the server's error text on refusal. */
export async function signUp(username: string, password: string): Promise<void> {
  await put('/users', { username: username.trim(), password }, { silent: true });
}
