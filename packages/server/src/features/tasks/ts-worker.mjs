// Entry of a worker thread written in TypeScript: worker threads start without the master's loader, so this plain
// JavaScript entry loads the module named by `workerData.entry` (a file URL) through tsx, as the master itself runs.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.entry, import.meta.url);
