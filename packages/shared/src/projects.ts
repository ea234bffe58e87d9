import { Type, type Static } from '@sinclair/typebox';
import { Str } from './bounds.ts';

/** Projects (spec §3 "Project", §7 "Projects"). `tag` and `tags` carry the same list; either is accepted. */
const Tags = Type.Array(Str(50), { maxItems: 50 }); // blanks and duplicates are dropped

export const ProjectBody = Type.Object({
  name: Str(200, { minLength: 1 }),
  description: Type.Optional(Str(10000)),
  tags: Type.Optional(Tags),
  tag: Type.Optional(Tags),
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

export interface Project {
  _id: string;
  name: string;
  description: string;
  tags: string[];
  /** Same list as `tags` (the spec's name). */
  tag: string[];
  /** Ids of the spiders in this project that the caller can see. */
  spiders: string[];
  spider_count: number;
  owner_id: string | null;
  create_ts: string | null;
  update_ts: string | null;
}

/** GET /projects/tags */
export interface ProjectTag {
  tag: string;
  count: number;
}
