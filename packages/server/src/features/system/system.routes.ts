import { Type } from '@sinclair/typebox';
import {
  DocsIndex,
  LatestReleaseAnswer,
  SystemSetting,
  VERSION,
  okResponse,
  type LatestRelease,
} from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { HttpError } from '../../http/errors.ts';
import { docsIndex } from './docs-index.ts';
import { getSetting } from './settings.store.ts';
import { signupOpen } from '../session/session.routes.ts';

const RELEASE_CACHE_MS = 3600_000;
const RELEASE_TIMEOUT_MS = 3000;

/** Version, public settings, latest release and documentation map. */
export const systemFeature: Feature = (app, ctx) => {
  let release: { at: number; value: LatestRelease } | undefined;

  app.get('/api/version', { config: { access: 'public' }, schema: { response: okResponse(Type.String()) } }, async () =>
    ok(VERSION),
  );

  app.get(
    '/api/setting',
    { config: { access: 'public' }, schema: { response: okResponse(SystemSetting) } },
    async () => {
      const enable = await getSetting(ctx.store.db, 'enable_tutorial', ctx.config.enableTutorial);
      const signup = await signupOpen(ctx.store.db);
      const setting: SystemSetting = { enable_tutorial: enable ? 'Y' : 'N', allow_signup: signup ? 'Y' : 'N' };
      return ok(setting);
    },
  );

  async function fetchRelease(url: string): Promise<LatestRelease> {
    let json: { name?: string; tag_name?: string; body?: string };
    try {
      const res = await fetch(url, {
        signal: AbortSignal.timeout(RELEASE_TIMEOUT_MS),
        headers: { accept: 'application/json' },
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      json = (await res.json()) as typeof json;
    } catch (err) {
      throw new HttpError(502, `release source unreachable: ${(err as Error).message}`);
    }
    const name = json.tag_name || json.name;
    if (!name) throw new HttpError(502, 'release source answered without a release name');
    return { name, body: json.body ?? '' };
  }

  // Works without any network: with no source configured the answer says so (nothing to show, not an error);
  // an unreachable source answers 502 and the console shows nothing either.
  app.get(
    '/api/releases/latest',
    { config: { access: 'user' }, schema: { response: okResponse(LatestReleaseAnswer) } },
    async () => {
      if (!ctx.config.releasesUrl) return ok({ configured: false });
      if (!release || Date.now() - release.at >= RELEASE_CACHE_MS)
        release = { at: Date.now(), value: await fetchRelease(ctx.config.releasesUrl) };
      return ok({ configured: true, ...release.value });
    },
  );

  app.get('/api/docs', { config: { access: 'user' }, schema: { response: okResponse(DocsIndex) } }, async () =>
    ok({ string: JSON.stringify(docsIndex(ctx.config.docsUrl)) }),
  );
};
