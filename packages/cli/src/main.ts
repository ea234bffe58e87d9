/**
 * `crawldeck` — one executable, several roles (ARCHITECTURE.md):
 *   crawldeck start                         master with its embedded store and local node
 *   crawldeck node --master URL             join a master as a worker node (key from a file or the environment)
 */
import { parseArgs } from 'node:util';

const usage = `usage:
  crawldeck start [--port N] [--data-dir DIR]
  crawldeck node --master URL [--key-file FILE] [--data-dir DIR] [--name NAME] [--max-runners N]
                 [--python PATH] [--grace-seconds N]
  (the node key: --key-file FILE, CRAWLDECK_NODE_KEY_FILE or CRAWLDECK_NODE_KEY; never on the command line)`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start': {
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
      return;
    }
    case 'node': {
      const { runNodeCli } = await import('@crawldeck/node');
      await runNodeCli(rest);
      return;
    }
    default:
      console.error(usage);
      process.exit(command ? 2 : 0);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
