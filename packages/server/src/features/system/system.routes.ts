import { VERSION, type LatestRelease, type SystemSetting } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { HttpError } from '../../http/errors.ts';
import { docsIndex } from './docs-index.ts';
import { getSetting } from './settings.store.ts';
import { ALLOW_SIGNUP_KEY } from '../session/session.routes.ts';

const RELEASE_CACHE_MS = 3600_000;
const RELEASE_TIMEOUT_MS = 3000;

/** Version, public settings, latest release and documentation map (spec §7 "Session and general"). */
export const systemFeature: Feature = (app, ctx) => {
  let release: { at: number; value: LatestRelease } | undefined;

  app.get('/api/version', { config: { access: 'public' } }, async () => ok(VERSION));

  app.get('/api/setting', { config: { access: 'public' } }, async () => {
    const enable = await getSetting(ctx.store.db, 'enable_tutorial', ctx.config.enableTutorial);
    const signup = await getSetting(ctx.store.db, ALLOW_SIGNUP_KEY, true);
    const setting: SystemSetting = { enable_tutorial: enable ? 'Y' : 'N', allow_signup: signup ? 'Y' : 'N' };
    return ok(setting);
  });

  // Works without any network: with no source configured or the source unreachable it answers an error and the
  // console stores nothing (spec §7).
  app.get('/api/releases/latest', { config: { access: 'user' } }, async () => {
    if (!ctx.config.releasesUrl) throw new HttpError(503, 'no release source is configured (CRAWLDECK_RELEASES_URL)');
    if (release && Date.now() - release.at < RELEASE_CACHE_MS) return ok(release.value);
    let json: { name?: string; tag_name?: string; body?: string };
    try {
      const res = await fetch(ctx.config.releasesUrl, { signal: AbortSignal.timeout(RELEASE_TIMEOUT_MS), headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      json = (await res.json()) as typeof json;
    } catch (err) {
      throw new HttpError(502, `release source unreachable: ${(err as Error).message}`);
    }
    const name = json.tag_name || json.name;
    if (!name) throw new HttpError(502, 'release source answered without a release name');
    release = { at: Date.now(), value: { name, body: json.body ?? '' } };
    return ok(release.value);
  });

  app.get('/api/docs', { config: { access: 'user' } }, async () => ok({ string: JSON.stringify(docsIndex(ctx.config.docsUrl)) }));
};
