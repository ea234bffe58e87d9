/** Entry of the node bundle the master serves to new machines: `crawldeck-node [options]` runs the node service. */
import { runNodeCli } from './index.ts';

runNodeCli(process.argv.slice(2), 'crawldeck-node').catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit((err as { exitCode?: number }).exitCode ?? 1);
});
