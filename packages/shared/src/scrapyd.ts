import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './responses.ts';

/**
 * The Scrapyd-compatible web service (`/scrapyd/*.json`): the answers tools written for Scrapyd 1.6 read
 * (scrapyd-deploy, scrapyd-client, ScrapydWeb). Every answer names the node and says `status: ok`; a refused
 * request answers `{node_name, status: 'error', message}` with HTTP 200, as Scrapyd does, so those tools show the
 * message instead of failing on the status code. Only a missing or wrong sign-in is 401.
 */

/** Longest project, version, spider or job name, and longest spider argument or setting, a request may carry. */
export const SCRAPYD_NAME_MAX = 200;
export const SCRAPYD_VALUE_MAX = 4000;
/** Most spider arguments plus settings one schedule may carry. */
export const SCRAPYD_ARGS_MAX = 100;
/** Finished jobs listjobs shows, the newest (Scrapyd keeps a bounded list of finished jobs too). */
export const SCRAPYD_FINISHED_KEPT = 100;

const Head = { node_name: Type.String(), status: Type.Literal('ok') };

export const ScrapydError = Type.Object({
  node_name: Type.String(),
  status: Type.Literal('error'),
  message: Type.String(),
});
export type ScrapydError = Static<typeof ScrapydError>;

export const ScrapydDaemonStatus = Type.Object({
  ...Head,
  pending: Type.Integer(),
  running: Type.Integer(),
  finished: Type.Integer(),
});
export const ScrapydAddVersion = Type.Object({
  ...Head,
  project: Type.String(),
  version: Type.String(),
  spiders: Type.Integer(),
});
export const ScrapydScheduled = Type.Object({ ...Head, jobid: Type.String() });
export const ScrapydCancelled = Type.Object({ ...Head, prevstate: Nullable(Type.String()) });
export const ScrapydJobState = Type.Object({ ...Head, currstate: Nullable(Type.String()) });
export const ScrapydProjects = Type.Object({ ...Head, projects: Type.Array(Type.String()) });
export const ScrapydVersions = Type.Object({ ...Head, versions: Type.Array(Type.String()) });
export const ScrapydSpiders = Type.Object({ ...Head, spiders: Type.Array(Type.String()) });
export const ScrapydDone = Type.Object(Head);

/** One job of listjobs; which fields appear depends on its state, as in Scrapyd. */
export const ScrapydJob = Type.Object({
  id: Type.String(),
  project: Type.String(),
  spider: Type.String(),
  version: Type.Optional(Nullable(Type.String())),
  settings: Type.Optional(Type.Record(Type.String(), Type.String())),
  args: Type.Optional(Type.Record(Type.String(), Type.String())),
  pid: Type.Optional(Nullable(Type.Integer())),
  start_time: Type.Optional(Type.String()),
  end_time: Type.Optional(Type.String()),
  log_url: Type.Optional(Nullable(Type.String())),
  items_url: Type.Optional(Nullable(Type.String())),
});
export type ScrapydJob = Static<typeof ScrapydJob>;

export const ScrapydJobs = Type.Object({
  ...Head,
  pending: Type.Array(ScrapydJob),
  running: Type.Array(ScrapydJob),
  finished: Type.Array(ScrapydJob),
});

/** The answer of one endpoint: its own shape, or Scrapyd's error (both with HTTP 200). */
export const scrapydResponse = <T extends ReturnType<typeof Type.Object>>(ok: T) => ({
  200: Type.Union([ok, ScrapydError]),
});
