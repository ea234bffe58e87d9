/** The `crawldeck node` command: options and the node key, then the node service until SIGINT / SIGTERM. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadNodeEnv } from './config.ts';
import { startNode, type RunningNode } from './node-service.ts';
import { parseMasterUrls } from './master-http.ts';

/** Exit status of a node whose key the master refused: a service manager can be told not to restart on it. */
export const KEY_REFUSED_EXIT = 78;

/** A command line the node does not understand: the usage is printed and the process ends with status 2. */
export class NodeUsageError extends Error {
  readonly exitCode = 2;
}

function usage(prog: string): string {
  return `usage: ${prog} --master URL [--key-file FILE] [--data-dir DIR] [--name NAME] [--max-runners N]
       [--python PATH] [--grace-seconds N] [--task-user USER] [--work-dir DIR]
       ${prog} --help

Joins the master at URL as a worker node and runs its tasks until stopped (SIGINT or SIGTERM).

  --master URL[,URL…]  the master (or CRAWLDECK_MASTER_URL); several masters sharing one PostgreSQL store,
                       comma-separated: when the one the node holds is gone, the node joins the next
  --key-file FILE      file whose first line is the master's node key (or CRAWLDECK_NODE_KEY_FILE, or the key
                       itself in CRAWLDECK_NODE_KEY); never the key on the command line, where ps shows it
  --data-dir DIR       the node's id, spools and spider files (default: data/ in the installed node's folder,
                       else ~/.crawldeck/node-data); the same folder means the same node
  --name NAME          the name shown in the console (default: the host name; a name another node has gets a
                       numbered suffix)
  --max-runners N      tasks at the same time (default 8)
  --python PATH        interpreter of Python and Scrapy spiders
  --grace-seconds N    between SIGTERM and SIGKILL when a task is cancelled (default 5)
  --task-user USER     when run as root: the user task processes run as
  --work-dir DIR       where task processes run, outside the data folder

A master that cannot be reached is retried; a node key it refuses stops the node with status ${KEY_REFUSED_EXIT}.`;
}

/** The node key from a file (first line) or the environment: a key on the command line shows in `ps`. */
function readNodeKey(file: string | undefined, fromEnv: string | undefined): string | undefined {
  if (file) return readFileSync(file, 'utf8').split('\n')[0].trim() || undefined;
  return fromEnv;
}

function parseNodeArgs(args: string[], prog: string) {
  try {
    return parseArgs({
      args,
      options: {
        help: { type: 'boolean', short: 'h' },
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
  } catch (err) {
    throw new NodeUsageError(`${err instanceof Error ? err.message : String(err)}\n${usage(prog)}`);
  }
}

/** `crawldeck node --master URL [--key-file FILE] …` (also the installed node's `crawldeck-node`). */
export async function runNodeCli(args: string[], prog = 'crawldeck node'): Promise<void> {
  const values = parseNodeArgs(args, prog);
  if (values.help) {
    process.stdout.write(usage(prog) + '\n');
    return;
  }
  process.title = 'crawldeck-node';
  // Every local user (task processes too) reads a command line in /proc/PID/cmdline: a key there is refused.
  if (values.key !== undefined)
    throw new Error(
      '--key is not accepted: put the key in a file (--key-file) or in CRAWLDECK_NODE_KEY\n' + usage(prog),
    );
  const env = loadNodeEnv();
  const master = values.master ?? env.masterUrl;
  const key = readNodeKey(values['key-file'] ?? env.keyFile, env.nodeKey);
  if (!master)
    throw new NodeUsageError(`the master's URL is needed (--master or CRAWLDECK_MASTER_URL)\n${usage(prog)}`);
  try {
    parseMasterUrls(master);
  } catch (err) {
    throw new NodeUsageError(`${(err as Error).message}\n${usage(prog)}`);
  }
  if (!key) throw new NodeUsageError(`the node key is needed (--key-file or CRAWLDECK_NODE_KEY)\n${usage(prog)}`);
  const maxRunners = Number(values['max-runners'] ?? env.maxRunners);
  if (!Number.isInteger(maxRunners) || maxRunners < 1) throw new Error('--max-runners must be a positive integer');
  const node: RunningNode = await startNode({
    master,
    key,
    dataDir: values['data-dir'] ?? env.dataDir,
    name: values.name,
    maxRunners,
    python: values.python,
    graceMs: values['grace-seconds'] ? Number(values['grace-seconds']) * 1000 : undefined,
    taskUser: values['task-user'],
    workDir: values['work-dir'],
    onKeyRefused: (reason) => {
      console.error(
        `crawldeck node: the master at ${master} refused the node key (${reason}). ` +
          `Put the key shown on the master's Nodes screen in the key file and start the node again. Stopped.`,
      );
      stop(KEY_REFUSED_EXIT);
    },
  });
  // Called only once the node has started (its events come later than this function's end).
  const stop = (status: number) => {
    void node.stop().then(() => process.exit(status));
  };
  console.error(`crawldeck node ${node.nodeId} joining ${master}`);
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
}
