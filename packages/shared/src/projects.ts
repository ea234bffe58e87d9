import { Type, type Static } from '@sinclair/typebox';
import { Int, Str } from './bounds.ts';
import { MAX_RUNNING_MAX } from './constants.ts';
import { Envelope, EnvelopeList, Nullable } from './paging.ts';

/** Projects. `tag` and `tags` carry the same list; either is accepted. */
const Tags = Type.Array(Str(50), { maxItems: 50 }); // blanks and duplicates are dropped

export const ProjectBody = Type.Object({
  name: Str(200, { minLength: 1 }),
  description: Type.Optional(Str(10000)),
  tags: Type.Optional(Tags),
  tag: Type.Optional(Tags),
  /** Most tasks of the project's spiders claimed or running at once (0: no limit); the others wait. */
  max_running: Type.Optional(Int(0, MAX_RUNNING_MAX)),
});
export type ProjectBody = Static<typeof ProjectBody>;

export const UpdateProjectBody = Type.Partial(ProjectBody);
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

export const ProjectListQuery = Type.Object({
  /** Only projects carrying this tag. */
  tag: Type.Optional(Str(50)),
  /** Case-insensitive substring of name or description. */
  keyword: Type.Optional(Str(200)),
});
export type ProjectListQuery = Static<typeof ProjectListQuery>;

export const SetSpiderProjectsBody = Type.Object({
  /** null, '' or the all-zero id unassign the spiders. */
  project_id: Type.Union([Str(24), Type.Null()]),
  spider_ids: Type.Array(Str(24), { maxItems: 100000 }),
});
export type SetSpiderProjectsBody = Static<typeof SetSpiderProjectsBody>;

export const Project = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  /** Same list as `tags`, under the name older clients use. */
  tag: Type.Array(Type.String()),
  /** Ids of the spiders in this project that the caller can see. */
  spiders: Type.Array(Type.String()),
  spider_count: Type.Number(),
  /** Most tasks of its spiders claimed or running at once; 0: no limit. */
  max_running: Type.Number(),
  owner_id: Nullable(Type.String()),
  create_ts: Nullable(Type.String({ description: 'ISO 8601 time' })),
  update_ts: Nullable(Type.String({ description: 'ISO 8601 time' })),
});
export type Project = Static<typeof Project>;

/** GET /projects/tags */
export const ProjectTag = Type.Object({ tag: Type.String(), count: Type.Number() });
export type ProjectTag = Static<typeof ProjectTag>;

export const ProjectResponse = Envelope(Project);
export const ProjectListResponse = EnvelopeList(Project);
export const ProjectTagListResponse = Envelope(Type.Array(ProjectTag));
/** POST /spiders-set-projects: how many spiders moved. */
export const UpdatedResponse = Envelope(Type.Object({ updated: Type.Number() }));
