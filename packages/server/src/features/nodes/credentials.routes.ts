/**
 * A node's own key, for administrators on node detail: its state, a new key (rotate) and revocation. The key is
 * shown once, in the answer that issues it; afterwards only its state is.
 */
import { Type } from '@sinclair/typebox';
import { NodeKeyIssuedEnvelope, NodeKeyStateEnvelope, type NodeKeyState } from '@crawldeck/shared';
import type { AppContext, TypedApp } from '../../context.ts';
import { iso, ok } from '../../http/envelope.ts';
import { nodeFor } from '../../policies/index.ts';
import { nodeCredential, revokeNodeKey, rotateKey } from './credentials.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{24}$' }) });
const admin = { access: 'admin' as const };

export function registerNodeKeyRoutes(app: TypedApp, ctx: AppContext): void {
  const { db } = ctx.store;
  const rt = ctx.execution;

  async function state(nodeId: string): Promise<NodeKeyState> {
    const c = await nodeCredential(db, nodeId);
    return {
      has_key: c != null && c.revoke_ts == null,
      revoked: c?.revoke_ts != null,
      created_at: iso(c?.create_ts),
      last_used_at: iso(c?.last_used_ts),
      revoked_at: iso(c?.revoke_ts),
    };
  }

  app.get(
    '/api/nodes/:id/key',
    { config: admin, schema: { params: IdParams, response: { 200: NodeKeyStateEnvelope } } },
    async (req) => {
      const n = await nodeFor(db, req.user, req.params.id, 'change');
      return ok(await state(n.id));
    },
  );

  app.post(
    '/api/nodes/:id/key',
    { config: admin, schema: { params: IdParams, response: { 200: NodeKeyIssuedEnvelope } } },
    async (req) => {
      const n = await nodeFor(db, req.user, req.params.id, 'change');
      const key = await rotateKey(db, n.id);
      const delivered = rt.sendKey(n.id, key);
      ctx.log.info({ nodeId: n.id, delivered }, 'node key rotated');
      return ok({ ...(await state(n.id)), key, delivered });
    },
  );

  app.delete(
    '/api/nodes/:id/key',
    { config: admin, schema: { params: IdParams, response: { 200: NodeKeyStateEnvelope } } },
    async (req) => {
      const n = await nodeFor(db, req.user, req.params.id, 'change');
      if (await revokeNodeKey(db, n.id)) {
        await rt.cutNode(n.id);
        ctx.log.info({ nodeId: n.id }, 'node key revoked');
      }
      return ok(await state(n.id));
    },
  );
}
