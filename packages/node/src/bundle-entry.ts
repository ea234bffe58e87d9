/** Entry of the node bundle the master serves to new machines: `crawldeck-node [options]` runs the node service. */
import { runNodeCli } from './index.ts';

runNodeCli(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
