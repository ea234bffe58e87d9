import {
  EMPTY_ID,
  ProjectBody,
  ProjectListQuery,
  SetSpiderProjectsBody,
  UpdateProjectBody,
  newId,
} from '@crawldeck/shared';
import {
  LooseIdParams,
  NullResponse,
  ProjectListResponse,
  ProjectResponse,
  ProjectTagListResponse,
  UpdatedResponse,
} from '@crawldeck/shared';
import type { Kysely } from 'kysely';
import type { AppContext, Feature, TypedApp } from '../../context.ts';
import type { DB } from '../../store/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ok } from '../../http/envelope.ts';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.ts';
import { isUniqueViolation } from '../users/users.store.ts';
import { assertProject, canSpider } from '../../policies/index.ts';
import {
  cleanTags,
  deleteProject,
  getProject,
  insertProject,
  listProjects,
  listTags,
  setSpidersProject,
  updateProject,
  type ProjectPatch,
  type ProjectRow,
} from './projects.store.ts';

const IdParams = LooseIdParams;
const dupName = (name: string) => conflict(`a project named "${name}" already exists`);

function mayChange(user: AuthUser, row: ProjectRow): void {
  assertProject(user, row, 'change');
}

/** One project as the caller sees it (its spiders filtered by what they may read). */
async function oneProject(db: Kysely<DB>, id: string, user: AuthUser) {
  return (await listProjects(db, user, { id }))[0];
}

/** Reading: the projects (by tag or keyword) and the tags in use. */
function projectReadRoutes(app: TypedApp, ctx: AppContext): void {
  const { db } = ctx.store;
  app.get(
    '/api/projects',
    { config: { access: 'user' }, schema: { querystring: ProjectListQuery, response: { 200: ProjectListResponse } } },
    async (req) => {
      const list = await listProjects(db, req.user, req.query);
      return ok(list, list.length);
    },
  );
  app.get(
    '/api/projects/tags',
    { config: { access: 'user' }, schema: { response: { 200: ProjectTagListResponse } } },
    async () => ok(await listTags(db)),
  );
}

/** Creating, changing and deleting a project. */
function projectWriteRoutes(app: TypedApp, ctx: AppContext): void {
  const { db } = ctx.store;
  app.put(
    '/api/projects',
    { config: { access: 'user' }, schema: { body: ProjectBody, response: { 200: ProjectResponse } } },
    async (req) => {
      const name = req.body.name.trim();
      if (!name) throw badRequest('project name is required');
      const tags = cleanTags(req.body.tags ?? req.body.tag) ?? [];
      const now = Date.now();
      const id = newId(now);
      try {
        await insertProject(db, {
          id,
          name,
          description: req.body.description ?? '',
          max_running: req.body.max_running ?? 0,
          owner_id: req.user.id,
          tags,
          now,
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw dupName(name);
        throw err;
      }
      return ok(await oneProject(db, id, req.user));
    },
  );
  app.post(
    '/api/projects/:id',
    {
      config: { access: 'user' },
      schema: { params: IdParams, body: UpdateProjectBody, response: { 200: ProjectResponse } },
    },
    async (req) => {
      const row = await getProject(db, req.params.id);
      if (!row) throw notFound('project');
      mayChange(req.user, row);
      const patch: ProjectPatch = { update_ts: Date.now() };
      if (req.body.name !== undefined) {
        patch.name = req.body.name.trim();
        if (!patch.name) throw badRequest('project name is required');
      }
      if (req.body.description !== undefined) patch.description = req.body.description;
      if (req.body.max_running !== undefined) patch.max_running = req.body.max_running;
      const tags = cleanTags(req.body.tags ?? req.body.tag);
      try {
        await updateProject(db, row.id, patch, tags);
      } catch (err) {
        if (isUniqueViolation(err)) throw dupName(patch.name ?? row.name);
        throw err;
      }
      return ok(await oneProject(db, row.id, req.user));
    },
  );
  app.delete(
    '/api/projects/:id',
    { config: { access: 'user' }, schema: { params: IdParams, response: { 200: NullResponse } } },
    async (req) => {
      const row = await getProject(db, req.params.id);
      if (!row) throw notFound('project');
      mayChange(req.user, row);
      await deleteProject(db, row.id);
      return ok(null);
    },
  );
}

/** Moving spiders into a project, or out of every project. */
function spiderProjectRoutes(app: TypedApp, ctx: AppContext): void {
  const { db } = ctx.store;
  app.post(
    '/api/spiders-set-projects',
    { config: { access: 'user' }, schema: { body: SetSpiderProjectsBody, response: { 200: UpdatedResponse } } },
    async (req) => {
      const { project_id, spider_ids } = req.body;
      const target = project_id === null || project_id === '' || project_id === EMPTY_ID ? null : project_id;
      if (target && !(await getProject(db, target))) throw notFound('project');
      const ids = [...new Set(spider_ids)];
      if (!ids.length) return ok({ updated: 0 });
      const updated = await setSpidersProject(db, ids, target, (wanted, found) => {
        // Another user's private spider is named as an unknown id would be.
        const known = new Set(found.filter((r) => canSpider(req.user, r, 'read')).map((r) => r.id));
        const missing = wanted.find((id) => !known.has(id));
        if (missing) throw notFound(`spider ${missing}`);
        if (found.some((r) => !canSpider(req.user, r, 'change')))
          throw forbidden('forbidden: only the owner or an administrator may move a spider');
      });
      return ok({ updated });
    },
  );
}

/**
 * Projects: everyone signed in sees all projects and creates their own; the owner or an admin
 * changes or deletes one. Deleting a project leaves its spiders without a project.
 */
export const projectsFeature: Feature = (app, ctx) => {
  projectReadRoutes(app, ctx);
  projectWriteRoutes(app, ctx);
  spiderProjectRoutes(app, ctx);
};
