/**
 * The node installer and bundle, public: a fresh machine has no session, and they hold only the node's code (the
 * same for everyone). What lets a node in is the node key, which the operator copies from the Nodes screen.
 */
import { readFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { BinaryResponse, OkOf } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { ok } from '../../http/envelope.ts';
import { installScript, masterUrl, nodeBundle } from './node-install.service.ts';

const NodeBundleInfo = Type.Object({
  version: Type.String(),
  sha256: Type.String(),
  size: Type.Integer(),
  install_url: Type.String(),
  bundle_url: Type.String(),
});

export const nodeInstallFeature: Feature = (app, ctx) => {
  const pub = { access: 'public' as const };

  app.get(
    '/api/node-install/manifest',
    { config: pub, schema: { response: { 200: OkOf(NodeBundleInfo) } } },
    async (req) => {
      const b = await nodeBundle(ctx);
      const url = masterUrl(ctx, req.protocol, req.headers.host);
      return ok({
        version: b.version,
        sha256: b.sha256,
        size: b.size,
        install_url: `${url}/api/node-install/install.sh`,
        bundle_url: `${url}/api/node-install/bundle.tar.gz`,
      });
    },
  );

  app.get(
    '/api/node-install/install.sh',
    { config: pub, schema: { response: { 200: Type.String() } } },
    async (req, reply) => {
      const b = await nodeBundle(ctx);
      reply.type('text/x-shellscript; charset=utf-8');
      return installScript(masterUrl(ctx, req.protocol, req.headers.host), b);
    },
  );

  app.get(
    '/api/node-install/bundle.tar.gz',
    { config: pub, schema: { response: { 200: BinaryResponse } } },
    async (_req, reply) => {
      const b = await nodeBundle(ctx);
      reply
        .type('application/gzip')
        .header('content-disposition', `attachment; filename="crawldeck-node-${b.version}.tar.gz"`);
      return reply.send(await readFile(b.file));
    },
  );
};
