/** The one place analytics events go through (page views and the actions worth counting). Disabled when localStorage useStats === '0'. */
import { put } from '../api/request.ts';

export function statsEnabled(): boolean {
  return localStorage.getItem('useStats') !== '0';
}

export async function sendEvent(type: string, params?: Record<string, unknown>): Promise<void> {
  if (!statsEnabled()) return;
  if (!localStorage.getItem('token')) return; // the action endpoint needs a session
  try {
    await put('/actions', params ? { type, params } : { type }, { silent: true });
  } catch {
    // analytics never disturbs the user
  }
}
