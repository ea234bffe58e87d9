import { VariableBody, isValidEnvName, newId } from '@crawldeck/shared';
import { LooseIdParams } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { isUniqueViolation } from '../users/users.store.ts';
import { listVariables, presentVariable } from './variables.store.ts';

const IdParams = LooseIdParams;

/** Global variables (issue 3 item 4): every signed-in user lists them, administrators change them. */
export const variablesFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;

  app.get('/api/variables', { config: { access: 'user' } }, async () => {
    const rows = await listVariables(db);
    return ok(rows.map(presentVariable), rows.length);
  });

  app.put('/api/variable', { config: { access: 'admin' }, schema: { body: VariableBody } }, async (req) => {
    const key = req.body.key.trim();
    if (!isValidEnvName(key)) throw badRequest(`variable key "${key}" is invalid: letters, digits and _, not starting with a digit`);
    const now = Date.now();
    const dup = () => conflict(`a variable with key "${key}" already exists`);
    const taken = await db.selectFrom('variables').select('id').where('key', '=', key).executeTakeFirst();
    let id = req.body._id;
    if (taken && taken.id !== id) throw dup();
    try {
      if (id) {
        const res = await db
          .updateTable('variables')
          .set({ key, value: req.body.value, ...(req.body.remark !== undefined ? { remark: req.body.remark } : {}), update_ts: now })
          .where('id', '=', id)
          .executeTakeFirst();
        if (!Number(res.numUpdatedRows)) throw notFound('variable');
      } else {
        id = newId(now);
        await db.insertInto('variables').values({ id, key, value: req.body.value, remark: req.body.remark ?? '', create_ts: now, update_ts: now }).execute();
      }
    } catch (err) {
      if (isUniqueViolation(err)) throw dup();
      throw err;
    }
    const row = await db.selectFrom('variables').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return ok(presentVariable(row));
  });

  app.delete('/api/variable/:id', { config: { access: 'admin' }, schema: { params: IdParams } }, async (req) => {
    const res = await db.deleteFrom('variables').where('id', '=', req.params.id).executeTakeFirst();
    if (!Number(res.numDeletedRows)) throw notFound('variable');
    return ok(null);
  });
};
