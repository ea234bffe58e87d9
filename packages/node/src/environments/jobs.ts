/**
 * The node's environment jobs: it claims its next job from the master (when it registers, when the master nudges
 * it, and every half minute), runs it beside the task processes, ships its log, reports the outcome and what the
 * node now has. One job at a time; the others wait in the master's store, so a kill -9 of either side loses none.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import {
  EMPTY_ENV_SETTINGS,
  redactCredentials,
  urlPasswords,
  type EnvClaim,
  type EnvJobOrder,
  type EnvSettings,
  type NodeEnvSettings,
} from '@crawldeck/shared';
import { privateDir } from '../sandbox.ts';
import { writeToolCredentials } from './credentials.ts';
import { aptUpdateCommand, languageCommand, npmCommand, pipCommand, sudoRefusal } from './commands.ts';
import { packageManager, takeInventory, toolEnv } from './inventory.ts';
import {
  nodeEnvDir,
  pythonEnvDir,
  toolCredentialsDir,
  toolHome,
  venvBuildingMarker,
  venvComplete,
  venvPython,
  type EnvPlaces,
} from './places.ts';
import { openToTaskUser } from './spider-env.ts';
import { runTool, toolError, type ToolResult } from './tool.ts';

export interface MasterLink {
  post<T>(route: string, body: unknown): Promise<T>;
  log(level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>): void;
}

const POLL_MS = 30_000;
const FLUSH_MS = 500;
const FINISH_ATTEMPTS = 60;
const FINISH_RETRY_MS = 2_000;
const SETTINGS_ATTEMPTS = 5;

export class EnvJobRunner {
  private busy = false;
  private again = false;
  private poll: NodeJS.Timeout | undefined;
  /** Index settings of the last claim or read, used for per-spider environments too, and the save they are of. */
  settings: EnvSettings = EMPTY_ENV_SETTINGS;
  private version = '';

  constructor(
    private places: EnvPlaces,
    private master: MasterLink,
  ) {}

  start(): void {
    this.poll = setInterval(() => this.wake(), POLL_MS);
    this.poll.unref();
  }

  stop(): void {
    if (this.poll) clearInterval(this.poll);
  }

  /** Claims and runs jobs until none is left; a wake during a run claims again after it. */
  wake(): void {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    void this.drain()
      .catch((err: unknown) => this.master.log('warn', 'environment jobs: master not reachable', { err: String(err) }))
      .finally(() => {
        this.busy = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async drain(): Promise<void> {
    let reported = false;
    for (;;) {
      const claim = await this.master.post<EnvClaim>('/api/node-api/env-jobs/claim', {});
      this.keep(claim);
      if (!reported) {
        // The first report of a node that just joined queues what belongs on every node: claim again after it.
        await this.report(claim);
        reported = true;
        if (!claim.job) continue;
      }
      if (!claim.job) return;
      await this.run(claim.job, claim);
    }
  }

  private keep(s: NodeEnvSettings): void {
    this.settings = s.settings;
    this.version = s.settings_version;
  }

  /**
   * The index settings of save `version` or a later one, for a task sent when that save was current: the copy the
   * node holds when it is of that save, else the master's current ones, read now. A master that cannot be asked
   * fails the task rather than building it from an index an administrator replaced.
   */
  async settingsFor(version: string | undefined): Promise<EnvSettings> {
    if (version === undefined || version === this.version) return this.settings;
    for (let attempt = 1; ; attempt++) {
      try {
        this.keep(await this.master.post<NodeEnvSettings>('/api/node-api/env-settings', {}));
        return this.settings;
      } catch (err) {
        if (attempt >= SETTINGS_ATTEMPTS)
          throw new Error(`the package index settings could not be read from the master: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, FINISH_RETRY_MS));
      }
    }
  }

  private async report(claim: EnvClaim): Promise<void> {
    const inventory = await takeInventory(this.places, claim.languages);
    await this.master.post('/api/node-api/environment', inventory);
  }

  private async run(job: EnvJobOrder, claim: EnvClaim): Promise<void> {
    let pending: string[] = [];
    const flush = async () => {
      const lines = pending;
      pending = [];
      if (lines.length)
        await this.master.post(`/api/node-api/env-jobs/${job.id}/log`, { lines }).catch(() => undefined);
    };
    const timer = setInterval(() => void flush(), FLUSH_MS);
    let outcome: { ok: boolean; error: string };
    try {
      outcome = await this.execute(job, (l) => pending.push(l));
    } catch (err) {
      const secrets = urlPasswords(Object.values(this.settings));
      outcome = { ok: false, error: redactCredentials((err as Error).message, secrets) };
      pending.push(outcome.error);
    } finally {
      clearInterval(timer);
    }
    await flush();
    const inventory = await takeInventory(this.places, claim.languages);
    await this.finish(job.id, { ...outcome, inventory });
    this.master.log(outcome.ok ? 'info' : 'warn', 'environment job ended', {
      job: job.id,
      name: job.name,
      ok: outcome.ok,
    });
  }

  /** The end of a job is repeated while the master is away (restarting): the job stays `running` until it lands. */
  private async finish(jobId: string, body: unknown): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.master.post(`/api/node-api/env-jobs/${jobId}/finish`, body);
        return;
      } catch (err) {
        if (attempt >= FINISH_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, FINISH_RETRY_MS));
      }
    }
  }

  private async execute(job: EnvJobOrder, onLine: (l: string) => void): Promise<{ ok: boolean; error: string }> {
    mkdirSync(toolHome(this.places), { recursive: true });
    const creds = writeToolCredentials(privateDir(toolCredentialsDir(this.places)), this.settings, undefined);
    const env = { ...toolEnv(this.places), ...creds.env };
    const tool = async (argv: string[]) =>
      runTool({ argv, env, onLine, cwd: toolHome(this.places), secrets: creds.secrets });
    try {
      return await this.executeWith(job, tool);
    } finally {
      creds.remove();
    }
  }

  private async executeWith(
    job: EnvJobOrder,
    tool: (argv: string[]) => Promise<ToolResult>,
  ): Promise<{ ok: boolean; error: string }> {
    if (job.target === 'language') {
      const pm = packageManager();
      const argv = languageCommand(job, pm);
      let r = await tool(argv);
      // A fresh machine often has no package lists yet: fetch them once and try again.
      if (
        r.code !== 0 &&
        pm === 'apt' &&
        job.action === 'install' &&
        /Unable to locate package|no installation candidate/.test(r.tail.join('\n'))
      ) {
        await tool(aptUpdateCommand());
        r = await tool(argv);
      }
      return r.code === 0 ? { ok: true, error: '' } : { ok: false, error: sudoRefusal(argv, r) ?? toolError(r) };
    }
    if (job.target === 'pip') {
      const dir = pythonEnvDir(this.places, job.environment || undefined);
      if (!(await usableVenv(dir))) {
        const made = await createVenv(dir, this.places.python, tool);
        if (made.code !== 0) return { ok: false, error: toolError(made) };
      }
      const r = await tool(pipCommand(job, this.places, this.settings));
      await openToTaskUser(dir);
      return r.code === 0 ? { ok: true, error: '' } : { ok: false, error: toolError(r) };
    }
    mkdirSync(nodeEnvDir(this.places), { recursive: true });
    const r = await tool(npmCommand(job, this.places));
    await openToTaskUser(nodeEnvDir(this.places));
    return r.code === 0 ? { ok: true, error: '' } : { ok: false, error: toolError(r) };
  }
}

/**
 * Whether the node's virtualenv `dir` was made to the end; one made before the building marker existed counts when
 * its pip answers.
 */
async function usableVenv(dir: string): Promise<boolean> {
  if (!venvComplete(dir)) return false;
  return promisify(execFile)(venvPython(dir), ['-m', 'pip', '--version'], {
    timeout: 60_000,
    env: { PATH: '/usr/bin:/bin' },
  }).then(
    () => true,
    () => false,
  );
}

/** Makes the virtualenv anew, between the building marker's creation and its removal (places.ts). */
async function createVenv(
  dir: string,
  python: string,
  tool: (argv: string[]) => Promise<ToolResult>,
): Promise<ToolResult> {
  mkdirSync(path.dirname(dir), { recursive: true });
  const marker = venvBuildingMarker(dir);
  writeFileSync(marker, new Date().toISOString() + '\n');
  rmSync(dir, { recursive: true, force: true });
  const made = await tool([python, '-m', 'venv', '--system-site-packages', dir]);
  if (made.code === 0) rmSync(marker, { force: true });
  return made;
}
