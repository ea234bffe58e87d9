// Entry of a log search worker thread: loads the TypeScript worker through tsx, as the master itself runs.
import { tsImport } from 'tsx/esm/api';

await tsImport('./log-search.worker.ts', import.meta.url);
