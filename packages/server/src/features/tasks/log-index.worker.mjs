// Entry of the log indexer worker thread: loads the TypeScript worker through tsx, as the master itself runs.
import { tsImport } from 'tsx/esm/api';

await tsImport('./log-index.worker.ts', import.meta.url);
