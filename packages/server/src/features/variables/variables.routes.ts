import { LooseIdParams, OkNull, Variable, VariableBody, isValidEnvName, newId, okResponse } from '@crawldeck/shared';
import { Type } from '@sinclair/typebox';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { isUniqueViolation } from '../users/users.store.ts';
import {
  deleteVariable,
  findVariable,
  findVariableByKey,
  insertVariable,
  listVariables,
  presentVariable,
  updateVariable,
} from './variables.store.ts';

/** Global variables: every signed-in user lists them, administrators change them. */
export const variablesFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;

  app.get(
    '/api/variables',
    { config: { access: 'user' }, schema: { response: okResponse(Type.Array(Variable)) } },
    async () => {
      const rows = await listVariables(db);
      return ok(rows.map(presentVariable), rows.length);
    },
  );

  app.put(
    '/api/variable',
    { config: { access: 'admin' }, schema: { body: VariableBody, response: okResponse(Variable) } },
    async (req) => {
      const key = req.body.key.trim();
      if (!isValidEnvName(key))
        throw badRequest(`variable key "${key}" is invalid: letters, digits and _, not starting with a digit`);
      const dup = () => conflict(`a variable with key "${key}" already exists`);
      const taken = await findVariableByKey(db, key);
      let id = req.body._id;
      if (taken && taken.id !== id) throw dup();
      try {
        if (id) {
          const remark = req.body.remark !== undefined ? { remark: req.body.remark } : {};
          if (!(await updateVariable(db, id, { key, value: req.body.value, ...remark }))) throw notFound('variable');
        } else {
          const now = Date.now();
          id = newId(now);
          await insertVariable(db, {
            id,
            key,
            value: req.body.value,
            remark: req.body.remark ?? '',
            create_ts: now,
            update_ts: now,
          });
        }
      } catch (err) {
        if (isUniqueViolation(err)) throw dup();
        throw err;
      }
      return ok(presentVariable((await findVariable(db, id))!));
    },
  );

  app.delete(
    '/api/variable/:id',
    { config: { access: 'admin' }, schema: { params: LooseIdParams, response: { 200: OkNull } } },
    async (req) => {
      if (!(await deleteVariable(db, req.params.id))) throw notFound('variable');
      return ok(null);
    },
  );
};
