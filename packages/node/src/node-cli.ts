/** The `crawldeck node` command: options and the node key, then the node service until SIGINT / SIGTERM. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadNodeEnv } from './config.ts';
import { startNode } from './node-service.ts';

const NODE_USAGE =
  'usage: crawldeck node --master URL [--key-file FILE] [--data-dir DIR] [--name NAME] [--max-runners N] [--python PATH] [--task-user USER] [--work-dir DIR]\n' +
  '  the node key comes from --key-file FILE, CRAWLDECK_NODE_KEY_FILE or CRAWLDECK_NODE_KEY, never the command line';

/** The node key from a file (first line) or the environment: a key on the command line shows in `ps`. */
function readNodeKey(file: string | undefined, fromEnv: string | undefined): string | undefined {
  if (file) return readFileSync(file, 'utf8').split('\n')[0].trim() || undefined;
  return fromEnv;
}

function parseNodeArgs(args: string[]) {
  return parseArgs({
    args,
    options: {
      master: { type: 'string' },
      key: { type: 'string' },
      'key-file': { type: 'string' },
      'data-dir': { type: 'string' },
      name: { type: 'string' },
      'max-runners': { type: 'string' },
      python: { type: 'string' },
      'grace-seconds': { type: 'string' },
      'task-user': { type: 'string' },
      'work-dir': { type: 'string' },
    },
  }).values;
}

/** `crawldeck node --master URL [--key-file FILE] [--data-dir DIR] [--name NAME] [--max-runners N] [--python PATH] [--task-user USER] [--work-dir DIR]` */
export async function runNodeCli(args: string[]): Promise<void> {
  const values = parseNodeArgs(args);
  process.title = 'crawldeck-node';
  // Every local user (task processes too) reads a command line in /proc/PID/cmdline: a key there is refused.
  if (values.key !== undefined)
    throw new Error(
      '--key is not accepted: put the key in a file (--key-file) or in CRAWLDECK_NODE_KEY\n' + NODE_USAGE,
    );
  const env = loadNodeEnv();
  const master = values.master ?? env.masterUrl;
  const key = readNodeKey(values['key-file'] ?? env.keyFile, env.nodeKey);
  if (!master || !key) throw new Error(NODE_USAGE);
  const maxRunners = Number(values['max-runners'] ?? env.maxRunners);
  if (!Number.isInteger(maxRunners) || maxRunners < 1) throw new Error('--max-runners must be a positive integer');
  const node = await startNode({
    master,
    key,
    dataDir: values['data-dir'] ?? env.dataDir,
    name: values.name,
    maxRunners,
    python: values.python,
    graceMs: values['grace-seconds'] ? Number(values['grace-seconds']) * 1000 : undefined,
    taskUser: values['task-user'],
    workDir: values['work-dir'],
  });
  console.error(`crawldeck node ${node.nodeId} joining ${master}`);
  const stop = () => {
    void node.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
