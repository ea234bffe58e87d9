/**
 * `crawldeck` — one executable, several roles, so an operator installs one thing:
 *   crawldeck start                         master with its embedded store and local node
 *   crawldeck node --master URL             join a master as a worker node (key from a file or the environment)
 * and the operator's everyday commands against a running master (login, deploy, run, logs, tasks, results,
 * schedules, nodes), described by `crawldeck --help`.
 */
import { parseArgs } from 'node:util';
import { operatorProgram } from './program.ts';
import { ApiError } from './api-client.ts';

async function startMasterCommand(rest: string[]): Promise<void> {
  const { values } = parseArgs({ args: rest, options: { port: { type: 'string' }, 'data-dir': { type: 'string' } } });
  const { startMaster } = await import('@crawldeck/server');
  const master = await startMaster({
    ...(values.port ? { port: Number(values.port) } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    master.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await master.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * A reader that goes away early (`crawldeck results … | head -1`) closes the pipe: that ends the command normally,
 * quietly and with exit code 0, wherever the write was made (a table, a log line, a streamed export).
 */
const closedPipe = (err: unknown): boolean => (err as NodeJS.ErrnoException | null)?.code === 'EPIPE';

/** The master refused the kept token (expired or revoked): the way out, besides the master's words. */
const signInAgain = (err: unknown, command: string | undefined): string =>
  err instanceof ApiError && err.status === 401 && command !== 'login'
    ? '; the kept token is no longer valid: run `crawldeck login` again'
    : '';

/** Every failure ends as one line of text on stderr and exit code 1 (2 for a usage error), never a stack trace. */
function fail(err: unknown, command?: string): never {
  if (closedPipe(err)) process.exit(0);
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}${signInAgain(err, command)}\n`);
  // A command line the node does not understand ends with status 2, like other usage errors.
  process.exit((err as { exitCode?: unknown } | null)?.exitCode === 2 ? 2 : 1);
}

/** In the `crawldeck` npm package the master and the node are not included: this says where they are. */
function elsewhere(where: string) {
  return (err: unknown): never => {
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && /@crawldeck\/(server|node)/.test(String(err)))
      throw new Error(`not part of this installation: ${where}`);
    throw err;
  };
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // The two long-running roles keep their own option parsing (the node's is shared with its own executable).
  if (command === 'start')
    return startMasterCommand(rest).catch(elsewhere('the master runs from a Crawldeck checkout: npm start'));
  if (command === 'node') {
    const { runNodeCli } = await import('@crawldeck/node').catch(
      elsewhere("the node is the crawldeck-node package (or the installer on the master's Nodes screen)"),
    );
    return runNodeCli(rest);
  }
  process.stdout.on('error', (err) => fail(err));
  process.stderr.on('error', (err) => process.exit(closedPipe(err) ? 0 : 1));
  await operatorProgram().parseAsync(argv, { from: 'user' });
}

const args = process.argv.slice(2);
main(args).catch((err: unknown) =>
  fail(
    err,
    args.find((a) => !a.startsWith('-')),
  ),
);
