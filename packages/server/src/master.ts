import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type MasterConfig } from './config.ts';
import { openStore, type Store } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import { authOptions, buildApp, type BuiltApp } from './app.ts';
import { startScrapydServer } from './features/scrapyd/scrapyd.server.ts';
import { findUserByUsername, insertUser, isUniqueViolation } from './features/users/users.store.ts';
import { hashPassword } from './features/session/passwords.ts';

export interface RunningMaster extends BuiltApp {
  url: string;
  /** The Scrapyd web service's own port, when it has one (CRAWLDECK_SCRAPYD_PORT). */
  scrapydUrl?: string;
  config: MasterConfig;
  store: Store;
}

/**
 * The master's own node (type `master`), started once the HTTP server listens: it joins over the same WebSocket a
 * worker uses, so task execution has one path. Stopped with the master.
 */
async function startEmbeddedNode(m: RunningMaster): Promise<void> {
  if (!m.config.embeddedNode) return;
  // Loaded only when used: a master without its own node starts without the node service's modules.
  const { startNode } = await import('@crawldeck/node');
  const node = await startNode({
    master: m.url,
    key: m.config.nodeKey,
    dataDir: path.join(m.config.dataDir, 'node'),
    type: 'master',
    name: 'master',
    log: (level, msg, extra) => m.app.log[level]({ ...(extra ?? {}), embeddedNode: true }, msg),
  });
  m.ctx.onClose(() => node.stop());
}

/** Creates the `admin` user on the first start: given password, or a random one printed once. */
async function ensureAdmin(store: Store, config: MasterConfig, log: BuiltApp['app']['log']): Promise<void> {
  if (await findUserByUsername(store.db, 'admin')) return;
  const generated = !config.adminPassword;
  const password = config.adminPassword || randomBytes(12).toString('base64url');
  try {
    await insertUser(store.db, { username: 'admin', passwordHash: await hashPassword(password), role: 'admin' });
  } catch (err) {
    if (isUniqueViolation(err)) return; // another master created it at the same moment
    throw err;
  }
  if (generated) {
    const file = path.join(config.dataDir, 'initial-admin-password');
    writeFileSync(file, password + '\n', { mode: 0o600 });
    log.warn(
      `created user "admin" with generated password ${password} (also written to ${file}); change it in Settings`,
    );
  } else {
    log.info('created user "admin" with the password from CRAWLDECK_ADMIN_PASSWORD');
  }
}

/** Starts a master: opens and migrates the store, builds the app, listens. Used by the CLI and by tests. */
export async function startMaster(overrides: Partial<MasterConfig> = {}): Promise<RunningMaster> {
  const config = loadConfig(overrides);
  const store = openStore(config);
  try {
    await migrateToLatest(store.db, store.engine);
    const built = await buildApp(config, store);
    await ensureAdmin(store, config, built.app.log);
    await built.app.listen({ port: config.port, host: config.host });
    const addr = built.app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    const master: RunningMaster = {
      ...built,
      url: `http://${host}:${port}`,
      config,
      store,
      async close() {
        await built.close();
        await store.close();
      },
    };
    if (config.scrapyd && config.scrapydPort !== null) {
      const scrapyd = await startScrapydServer(built.ctx, (s) => authOptions(config, s), config.scrapydPort);
      built.ctx.onClose(() => scrapyd.close());
      master.scrapydUrl = scrapyd.url;
    }
    await startEmbeddedNode(master);
    built.app.log.info({ url: master.url, store: store.engine, dataDir: config.dataDir }, 'Crawldeck master started');
    return master;
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}
