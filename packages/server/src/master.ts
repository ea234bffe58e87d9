import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type MasterConfig } from './config.ts';
import { openStore, type Store } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import { buildApp, type BuiltApp } from './app.ts';
import { findUserByUsername, insertUser, isUniqueViolation } from './features/users/users.store.ts';
import { hashPassword } from './features/session/passwords.ts';

export interface RunningMaster extends BuiltApp {
  url: string;
  config: MasterConfig;
  store: Store;
}

/** Hooks run after the HTTP server listens, e.g. the embedded node (registered by the node feature). */
const afterListen: ((m: RunningMaster) => Promise<void>)[] = [];
export function onMasterListening(fn: (m: RunningMaster) => Promise<void>): void {
  afterListen.push(fn);
}

/** Creates the `admin` user on the first start (issue 2): given password, or a random one printed once. */
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
    log.warn(`created user "admin" with generated password ${password} (also written to ${file}); change it in Settings`);
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
    for (const fn of afterListen) await fn(master);
    built.app.log.info({ url: master.url, store: store.engine, dataDir: config.dataDir }, 'Crawldeck master started');
    return master;
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}
