/**
 * Which save of the package-index settings is current. Every save stores a new random version beside the
 * settings (in the same row), a task assignment names it, and a node whose copy is of another save reads the
 * settings again before building the task's environment: a task never installs from an index replaced before it
 * was sent.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { getSetting } from '../system/settings.store.ts';
import type { StoredEnvSettings } from './index-secrets.ts';

export const ENV_SETTINGS_KEY = 'environments';

/** The settings as stored (passwords sealed). */
export function storedEnvSettings(db: Kysely<DB>): Promise<StoredEnvSettings> {
  return getSetting<StoredEnvSettings>(db, ENV_SETTINGS_KEY, {});
}

/** The current save's version; '' while the settings were never saved. */
export async function envSettingsVersion(db: Kysely<DB>): Promise<string> {
  return (await storedEnvSettings(db)).version ?? '';
}
