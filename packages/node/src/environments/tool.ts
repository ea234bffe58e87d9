/** Running a package tool (apt-get, pip, npm …) with its output streamed line by line into a job or task log. */
import { spawn, type ChildProcess } from 'node:child_process';
import { redactCredentials } from '@crawldeck/shared';

export interface ToolRun {
  /** The program and its arguments; never a shell line, so no name a user typed is interpreted. */
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
  timeoutMs?: number;
  /** Passwords the tool may print (its index's): hidden, like every URL password, in each line passed on. */
  secrets?: string[];
  onLine(line: string): void;
  /**
   * Starts the tool somewhere other than as a plain child (in a sandbox), in a process group of its own that a
   * timeout ends as a whole; `uid` and `gid` are then the launcher's to apply.
   */
  launch?(argv: string[], env: NodeJS.ProcessEnv, cwd: string | undefined): ChildProcess;
}

export interface ToolResult {
  code: number | null;
  /** The last lines of output, for an error message that carries the tool's own words. */
  tail: string[];
}

const TAIL_LINES = 15;

export function runTool(run: ToolRun): Promise<ToolResult> {
  return new Promise((resolve) => {
    const tail: string[] = [];
    const take = (raw: string) => {
      const line = redactCredentials(raw, run.secrets);
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      run.onLine(line);
    };
    run.onLine(redactCredentials(`$ ${run.argv.join(' ')}`, run.secrets));
    const child = run.launch
      ? run.launch(run.argv, run.env, run.cwd)
      : spawn(run.argv[0], run.argv.slice(1), {
          cwd: run.cwd,
          env: run.env,
          stdio: ['ignore', 'pipe', 'pipe'],
          ...(run.uid !== undefined ? { uid: run.uid, gid: run.gid } : {}),
        });
    const kill = () => {
      try {
        if (run.launch && child.pid) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        /* gone already */
      }
    };
    const timer = setTimeout(kill, run.timeoutMs ?? 30 * 60_000);
    for (const stream of [child.stdout!, child.stderr!]) {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (rest + chunk).split(/\r?\n/);
        rest = lines.pop() ?? '';
        for (const l of lines) if (l.trim()) take(l);
      });
      stream.on('end', () => {
        if (rest.trim()) take(rest);
      });
    }
    child.on('error', (err) => {
      clearTimeout(timer);
      take(`${run.argv[0]}: ${err.message}`);
      resolve({ code: null, tail });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, tail });
    });
  });
}

/** What a failed tool said, for the job's error: its last lines (the reason is almost always among them). */
export function toolError(r: ToolResult): string {
  const said = r.tail.filter((l) => !l.startsWith('$ ')).join('\n');
  return said || (r.code === null ? 'the tool could not be started' : `exit code ${r.code}`);
}
