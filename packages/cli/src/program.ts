import { Command, Option } from 'commander';
import { ApiClient } from './api-client.ts';
import { requireSettings } from './user-config.ts';
import { taskId } from './ids.ts';
import type { Output } from './output.ts';
import { login } from './commands/login.ts';
import { deploy } from './commands/deploy.ts';
import { run } from './commands/run.ts';
import { logs } from './commands/logs.ts';
import { nodes, schedules, tasks } from './commands/lists.ts';
import { RESULT_OUTPUT_FORMATS, results } from './commands/results.ts';
import { cancel } from './commands/cancel.ts';
import { logout } from './commands/logout.ts';

const collect = (value: string, previous: string[]) => [...previous, value];

/** The operator's commands; each talks to the master signed in with `login` through its HTTP API. */
export function operatorProgram(): Command {
  const program = new Command('crawldeck')
    .description('Crawldeck: run a master (start), join one as a node (node), or work with a running master')
    .option('--json', 'print JSON for scripts instead of tables and progress bars')
    .addHelpText(
      'after',
      `
Roles:
  crawldeck start [--port N] [--data-dir DIR]          run a master with its embedded store and local node
  crawldeck node --master URL [--key-file FILE] [...]  join a master as a worker node (key from a file or CRAWLDECK_NODE_KEY)

With --json standard output holds JSON only; run --follow and logs --follow print one JSON object a line (each log
line, then a summary). Errors are one line on stderr and exit code 1; a closed pipe (| head) ends a command
quietly with exit code 0.

Settings are kept in ~/.config/crawldeck/config.json (CRAWLDECK_CONFIG_DIR elsewhere); CRAWLDECK_URL and
CRAWLDECK_TOKEN override them for one command.`,
    );
  const output = (): Output => ({ json: !!program.opts().json, tty: !!process.stderr.isTTY });
  const api = () => {
    const s = requireSettings();
    return new ApiClient(s.url, s.token);
  };
  const exitWith = (code: number) => {
    process.exitCode = code;
  };

  program
    .command('login')
    .description('sign in and keep an API token for the other commands')
    .option('--url <url>', 'the master, e.g. http://crawl.example:8080')
    .option('-u, --username <name>', 'user name (asked when not given)')
    .option('--password-stdin', 'read the password from standard input')
    .option(
      '--token-stdin',
      'read an API token (made under Settings → Tokens) from standard input instead of signing in',
    )
    .option(
      '--token-file <path>',
      'read an API token (made under Settings → Tokens) from this file instead of signing in',
    )
    // Still recognised, only to refuse it with the reason: a token in the arguments is visible in `ps`.
    .addOption(new Option('--token <token>').hideHelp())
    .action((opts) => login(opts, output()));

  program
    .command('logout')
    .description('revoke the token `login` made on the master and remove it from this machine')
    .action(() => logout(output()));

  program
    .command('deploy')
    .description('zip a folder (a Scrapy project is found by its scrapy.cfg) and create or update its spider')
    .argument('[dir]', 'the folder to deploy', '.')
    .option('-n, --name <name>', "spider name (default: scrapy.cfg's project, else the folder name)")
    .option('--cmd <command>', 'run command (default: guessed by the master from the files)')
    .option('--src <folder>', 'source folder inside the deployed folder the tasks run in (a project in a sub-folder)')
    .action((dir: string, opts) => deploy(api(), dir, opts, output()));

  program
    .command('run')
    .description('run a spider (by name or id)')
    .argument('<spider>', 'spider name or id')
    .option('-a, --arg <key=value>', 'spider argument (Scrapy -a), repeatable', collect, [])
    .option('--crawl <name>', 'Scrapy spider to crawl when the project has several')
    .option('--param <text>', 'raw text appended to the command')
    .option('--node <node>', 'run on this node (name or id), repeatable', collect, [])
    .option('--all-nodes', 'run one task on every online node')
    .option('--priority <n>', 'queue priority: 1 (highest) to 5 (lowest); default 3')
    .option('--timeout <seconds>', "maximum run time, then the task is stopped (0: none; default: the spider's)")
    .option(
      '-f, --follow',
      "stream the log until the task ends (several tasks: each line starts with its node's name); exit code 1 unless all finished",
    )
    .action(async (spider: string, opts) => exitWith(await run(api(), spider, opts, output())));

  program
    .command('logs')
    .description("print a task's log")
    .argument('<task>', 'task id')
    .option('-f, --follow', 'keep streaming new lines until the task ends; exit code 1 unless it finished')
    .action(async (task: string, opts) => exitWith(await logs(api(), taskId(task), opts, output())));

  program
    .command('cancel')
    .description('cancel running or pending tasks and show what became of each (a task that ended already is reported)')
    .argument('<task...>', 'task ids')
    .action(async (ids: string[]) => exitWith(await cancel(api(), ids, output())));

  program
    .command('tasks')
    .description('list recent tasks, newest first')
    .option('--spider <spider>', 'only this spider (name or id)')
    .option('--status <status>', 'only this status (pending, running, finished, error, cancelled, abnormal)')
    .option('--limit <n>', 'how many', '20')
    .action((opts) => tasks(api(), opts, output()));

  program
    .command('results')
    .description("write every result of a task to standard output, streamed from the master's export")
    .argument('<task>', 'task id')
    .addOption(
      new Option('--format <format>', 'json: one array; jsonl: one object a line; csv: with a header row')
        .choices(RESULT_OUTPUT_FORMATS)
        .default('json'),
    )
    .option('--bom', 'start the CSV with a byte order mark (Excel)')
    .action((task: string, opts) => results(api(), taskId(task), opts));

  program
    .command('schedules')
    .description('list schedules')
    .action(() => schedules(api(), output()));

  program
    .command('nodes')
    .description('list nodes')
    .action(() => nodes(api(), output()));

  return program;
}
