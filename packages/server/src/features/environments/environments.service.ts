/**
 * Node environments: turns an administrator's install request into stored jobs (one per node), answers a node's
 * claim for its next job, and merges the language catalogue, each node's last report and the jobs under way into
 * the states the console shows (Installed, Not Installed, Installing).
 */
import {
  BUILTIN_LANGUAGES,
  EMPTY_ENV_SETTINGS,
  envJobReason,
  NODE_RUNTIME_LANGUAGES,
  NODE_RUNTIME_PIP_PACKAGES,
  newId,
  redactCredentials,
  urlPasswords,
  type DependencyRow,
  type EnvClaim,
  type EnvJob,
  type EnvJobBody,
  type EnvSettings,
  type EnvState,
  type InstalledPackage,
  type EnvLanguage,
  type EnvLanguageBody,
  type EnvLanguageState,
  type NodeEnvironment,
  type NodeEnvSettings,
  type NodeInventoryBody,
  type PackageSearchHit,
} from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';
import { iso } from '../../http/envelope.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { randomUUID } from 'node:crypto';
import { putSetting } from '../system/settings.store.ts';
import * as store from './environments.store.ts';
import { maskSettings, openSettings, sealSettings, type StoredEnvSettings } from './index-secrets.ts';
import { searchIndex } from './package-index.ts';
import { guardedAgent } from '../../outbound/http.ts';
import { outboundPolicy } from '../../outbound/policy.ts';
import { wakeNodes } from './wake.ts';
import { ENV_SETTINGS_KEY, storedEnvSettings } from './settings-version.ts';

/** pip compares names after PEP 503 normalisation (`Foo_Bar` is `foo-bar`); npm names are exact. */
export function packageKey(target: string, name: string): string {
  return target === 'pip' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name;
}

export function presentJob(r: store.EnvJobRow, nodeNames: Map<string, string>): EnvJob {
  return {
    _id: r.id,
    node_id: r.node_id,
    node_name: nodeNames.get(r.node_id) ?? '',
    target: r.target,
    action: r.action,
    name: r.name,
    version: r.version,
    environment: r.environment,
    status: r.status,
    log: r.log,
    error: r.error,
    reason: r.status === 'failed' ? envJobReason(r.error) : null,
    username: r.username,
    create_ts: iso(r.create_ts),
    start_ts: iso(r.start_ts),
    finish_ts: iso(r.finish_ts),
  };
}

interface Inventory {
  packageManager: string;
  languages: EnvLanguageState[];
  pip: InstalledPackage[];
  npm: InstalledPackage[];
  reportedTs: number | null;
}

function parseInventory(row: store.InventoryRow | undefined): Inventory {
  if (!row) return { packageManager: '', languages: [], pip: [], npm: [], reportedTs: null };
  return {
    packageManager: row.package_manager,
    languages: JSON.parse(row.languages) as EnvLanguageState[],
    pip: JSON.parse(row.pip) as InstalledPackage[],
    npm: JSON.parse(row.npm) as InstalledPackage[],
    reportedTs: row.update_ts,
  };
}

export class EnvironmentsService {
  constructor(private ctx: AppContext) {}

  private get db() {
    return this.ctx.store.db;
  }

  async languages(): Promise<EnvLanguage[]> {
    const custom = await store.customLanguages(this.db);
    return [...BUILTIN_LANGUAGES, ...custom.map((l) => ({ ...l, builtin: false }))];
  }

  async addLanguage(body: EnvLanguageBody): Promise<void> {
    if (BUILTIN_LANGUAGES.some((l) => l.key === body.key)) throw badRequest(`"${body.key}" is a built-in language`);
    await store.putLanguage(this.db, body);
  }

  async removeLanguage(key: string): Promise<void> {
    if (!(await store.deleteLanguage(this.db, key))) throw notFound('language');
  }

  /** The index settings with their passwords: for the nodes and the index lookup only, never an answer. */
  async settings(): Promise<EnvSettings> {
    return (await this.forNode()).settings;
  }

  /** The settings with their passwords and the save they come from, read together. */
  async forNode(): Promise<NodeEnvSettings> {
    const stored = await storedEnvSettings(this.db);
    const settings = openSettings(this.ctx.config.dataDir, { ...EMPTY_ENV_SETTINGS, ...stored });
    return { settings, settings_version: stored.version ?? '' };
  }

  /** The index settings as the console shows them (passwords masked). */
  async shownSettings(): Promise<EnvSettings> {
    return maskSettings(await this.settings());
  }

  /**
   * A job's log or error as stored: the node hides passwords already; a node of an earlier version does not, so the
   * master hides every URL password and the indexes' own passwords too.
   */
  async redact(text: string): Promise<string> {
    if (!text) return text;
    return redactCredentials(text, urlPasswords(Object.values(await this.settings())));
  }

  /**
   * Cancels a job that waits, or one held by a node that is not online (it died or was removed while the job ran):
   * the job ends failed, saying who cancelled it. A job its online node runs ends with its tool.
   */
  async cancelJob(user: { username: string }, id: string): Promise<EnvJob> {
    const job = await store.getJob(this.db, id);
    if (!job) throw notFound('job');
    if (job.status === 'done' || job.status === 'failed') throw conflict('the job has ended already');
    const nodeAway = (await store.nodeStatus(this.db, job.node_id)) !== 'online';
    if (job.status === 'running' && !nodeAway)
      throw conflict('the node is running this job now: it ends when its package manager does');
    const why = `cancelled by ${user.username}${job.status === 'running' ? ' (its node is not online)' : ''}`;
    if (!(await store.cancelJob(this.db, id, why, nodeAway))) throw conflict('the job has ended or started meanwhile');
    return presentJob((await store.getJob(this.db, id))!, await this.nodeNames());
  }

  /**
   * Saves the index settings as a new version and nudges every node, on whichever master it is connected to, to
   * fetch them now, not at its next poll.
   */
  async saveSettings(s: EnvSettings): Promise<EnvSettings> {
    const sealed: StoredEnvSettings = {
      ...sealSettings(this.ctx.config.dataDir, s, await this.settings()),
      version: randomUUID(),
    };
    await putSetting(this.db, ENV_SETTINGS_KEY, sealed);
    await wakeNodes(
      this.ctx,
      (await store.listNodes(this.db)).map((n) => n.id),
    );
    return this.shownSettings();
  }

  async nodeNames(): Promise<Map<string, string>> {
    return new Map((await store.listNodes(this.db)).map((n) => [n.id, n.name]));
  }

  /**
   * Why an uninstall would take away what the node itself runs on, or null. A language counts when it is a runtime
   * the node needs or names one of their system packages (an administrator's "Python 3.11" built on `python3`).
   */
  private runtimeRefusal(body: EnvJobBody, languages: EnvLanguage[]): string | null {
    if (body.action !== 'uninstall') return null;
    if (body.target === 'pip')
      return NODE_RUNTIME_PIP_PACKAGES.includes(packageKey('pip', body.name))
        ? `"${body.name}" installs every other package of the node's environments; it cannot be uninstalled`
        : null;
    if (body.target !== 'language') return null;
    const runtimes = languages.filter((l) => NODE_RUNTIME_LANGUAGES.includes(l.key));
    const lang = languages.find((l) => l.key === body.name);
    const systemPackages = (l: EnvLanguage) => new Set(Object.values(l.packages).flatMap((pkgs) => pkgs ?? []));
    const wanted = lang ? systemPackages(lang) : new Set<string>();
    const needed = runtimes.find((r) => r.key === lang?.key || [...systemPackages(r)].some((p) => wanted.has(p)));
    return needed
      ? `${needed.name} is what the node runs on (and runs spiders with); uninstalling "${body.name}" would remove it, so it cannot be done from the console`
      : null;
  }

  /** One job per node; with `all_nodes` the language or package is also marked for nodes that join later. */
  async startJobs(user: { id: string; username: string }, body: EnvJobBody): Promise<EnvJob[]> {
    const languages = await this.languages();
    if (body.target === 'language' && !languages.some((l) => l.key === body.name))
      throw badRequest(`unknown language "${body.name}"`);
    if (body.target === 'language' && body.action === 'upgrade')
      throw badRequest('languages are installed or uninstalled, not upgraded');
    const refusal = this.runtimeRefusal(body, languages);
    if (refusal) throw badRequest(refusal);
    const names = await this.nodeNames();
    const nodeIds = body.all_nodes ? [...names.keys()] : [...new Set(body.node_ids ?? [])];
    if (!nodeIds.length) throw badRequest('choose at least one node, or all nodes');
    const unknown = nodeIds.find((id) => !names.has(id));
    if (unknown) throw notFound(`node ${unknown}`);
    const version = body.version ?? '';
    const now = Date.now();
    const jobs = nodeIds.map((nodeId, i) => ({
      id: newId(now + i),
      node_id: nodeId,
      target: body.target,
      action: body.action,
      name: body.name,
      version,
      environment: body.target === 'pip' ? (body.environment ?? 'default') : '',
      user_id: user.id,
      username: user.username,
      create_ts: now,
    }));
    await store.insertJobs(this.db, jobs, this.ctx.config.envJobTimeoutMs);
    if (body.all_nodes && body.action === 'uninstall') await store.unmarkEverywhere(this.db, body.target, body.name);
    else if (body.all_nodes) await store.markEverywhere(this.db, body.target, body.name, version);
    await wakeNodes(this.ctx, nodeIds);
    const rows = await Promise.all(jobs.map((j) => store.getJob(this.db, j.id)));
    return rows.filter((r) => r !== undefined).map((r) => presentJob(r, names));
  }

  async claim(nodeId: string): Promise<EnvClaim> {
    await store.failInterruptedJobs(this.db, nodeId);
    const row = await store.claimNextJob(this.db, nodeId, this.ctx.config.envJobTimeoutMs);
    const languages = await this.languages();
    const { settings, settings_version } = await this.forNode();
    if (!row) return { job: null, settings, settings_version, languages };
    const language = row.target === 'language' ? (languages.find((l) => l.key === row.name) ?? null) : null;
    const job = {
      id: row.id,
      target: row.target as 'language' | 'pip' | 'npm',
      action: row.action as 'install' | 'uninstall' | 'upgrade',
      name: row.name,
      version: row.version,
      environment: row.environment,
      language,
    };
    return { job, settings, settings_version, languages };
  }

  /**
   * Stores what a node reports. On its first report (a node that just joined) the languages and packages marked
   * for all nodes that it lacks are queued for it.
   */
  async report(nodeId: string, inv: NodeInventoryBody): Promise<void> {
    const first = await store.saveInventory(this.db, nodeId, inv);
    if (!first) return;
    const has = (target: string, name: string) =>
      target === 'language'
        ? inv.languages.some((l) => l.key === name && l.installed)
        : (target === 'pip' ? inv.pip : inv.npm).some((p) => packageKey(target, p.name) === packageKey(target, name));
    const wanted = (await store.everywhere(this.db)).filter((e) => !has(e.target, e.name));
    const now = Date.now();
    await store.insertJobs(
      this.db,
      wanted.map((e, i) => ({
        id: newId(now + i),
        node_id: nodeId,
        target: e.target,
        action: 'install',
        name: e.name,
        version: e.version,
        environment: e.target === 'pip' ? 'default' : '',
        user_id: '',
        username: 'all nodes',
        create_ts: now,
      })),
      this.ctx.config.envJobTimeoutMs,
    );
    if (wanted.length) await wakeNodes(this.ctx, [nodeId]);
  }

  async nodeEnvironment(nodeId: string): Promise<NodeEnvironment> {
    const inv = parseInventory(await store.getInventory(this.db, nodeId));
    const jobs = (await store.unfinishedJobs(this.db)).filter((j) => j.node_id === nodeId);
    const marks = await store.everywhere(this.db);
    const busy = (target: string, name: string) =>
      jobs.some((j) => j.target === target && packageKey(target, j.name) === packageKey(target, name));
    const marked = (target: string, name: string) =>
      marks.some((m) => m.target === target && packageKey(target, m.name) === packageKey(target, name));
    const languages = (await this.languages()).map((l) => {
      const found = inv.languages.find((s) => s.key === l.key);
      const state: EnvState = busy('language', l.key) ? 'installing' : found?.installed ? 'installed' : 'not-installed';
      return {
        key: l.key,
        name: l.name,
        executable: l.executable,
        builtin: l.builtin,
        state,
        version: found?.version ?? '',
        path: found?.path ?? '',
        all_nodes: marked('language', l.key),
      };
    });
    const packages = (target: 'pip' | 'npm') => {
      const installed = new Map(inv[target].map((p) => [packageKey(target, p.name), p]));
      const names = new Map<string, string>();
      for (const p of inv[target]) names.set(packageKey(target, p.name), p.name);
      for (const j of jobs) if (j.target === target) names.set(packageKey(target, j.name), j.name);
      for (const m of marks) if (m.target === target) names.set(packageKey(target, m.name), m.name);
      // The node's own packages first, then those of the system Python its environment sees.
      const system = (key: string) => installed.get(key)?.system === true;
      return [...names]
        .sort(([a], [b]) => Number(system(a)) - Number(system(b)) || a.localeCompare(b))
        .map(([key, name]) => {
          const p = installed.get(key);
          const state: EnvState = busy(target, name) ? 'installing' : p ? 'installed' : 'not-installed';
          const listed = { name: p?.name ?? name, version: p?.version ?? '', state, all_nodes: marked(target, name) };
          return { ...listed, system: system(key) };
        });
    };
    return {
      node_id: nodeId,
      package_manager: inv.packageManager,
      reported_ts: iso(inv.reportedTs),
      languages,
      pip: packages('pip'),
      npm: packages('npm'),
    };
  }

  /** Every language and package any node has (or is getting), with each node's state and version. */
  async dependencies(): Promise<DependencyRow[]> {
    const nodes = await store.listNodes(this.db);
    const envs = await Promise.all(nodes.map((n) => this.nodeEnvironment(n.id)));
    const rows = new Map<string, DependencyRow>();
    const add = (target: string, name: string, allNodes: boolean) => {
      const key = `${target}\u0000${packageKey(target, name)}`;
      if (!rows.has(key)) rows.set(key, { target, name, all_nodes: allNodes, nodes: [] });
      return rows.get(key)!;
    };
    envs.forEach((env, i) => {
      const node = { node_id: nodes[i].id, node_name: nodes[i].name };
      for (const l of env.languages)
        if (l.state !== 'not-installed')
          add('language', l.key, l.all_nodes).nodes.push({ ...node, state: l.state, version: l.version });
      for (const target of ['pip', 'npm'] as const)
        for (const p of env[target])
          add(target, p.name, p.all_nodes).nodes.push({ ...node, state: p.state, version: p.version });
    });
    return [...rows.values()];
  }

  async search(target: 'pip' | 'npm', q: string): Promise<PackageSearchHit[]> {
    const agent = guardedAgent(await outboundPolicy(this.db, this.ctx.config.outboundAllow));
    try {
      return await searchIndex(target, q, await this.settings(), agent);
    } finally {
      await agent.close();
    }
  }
}
