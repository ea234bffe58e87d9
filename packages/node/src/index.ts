/** The node service (node-service.ts) and its command line (node-cli.ts). */
export { startNode, type NodeOptions, type RunningNode } from './node-service.ts';
export { runNodeCli } from './node-cli.ts';
export { resolveCommand } from './runner.ts';
export { MAX_LINE_BYTES } from './spool.ts';
