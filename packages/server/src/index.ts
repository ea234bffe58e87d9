export { startMaster, type RunningMaster } from './master.ts';
export { loadConfig, type MasterConfig } from './config.ts';
export { openStore, type Store } from './store/db.ts';
