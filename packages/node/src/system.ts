import { accessSync, constants, readFileSync, statfsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Executable, NodeMetrics, SandboxInfo, SystemInfo } from '@crawldeck/shared';
import { hostEnvironment } from './config.ts';

export const EXECUTABLES = ['python', 'python3', 'node', 'java', 'go', 'php', 'dotnet', 'git', 'scrapy'];

export function which(name: string, envPath = hostEnvironment().path ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** Default interpreter: /usr/bin/python3 when it has Scrapy (Debian python3-scrapy), else python3 on PATH. */
export function defaultPython(): string {
  const candidates = ['/usr/bin/python3'];
  for (const c of candidates) {
    const r = spawnSync(
      c,
      ['-c', 'import importlib.util,sys; sys.exit(0 if importlib.util.find_spec("scrapy") else 1)'],
      { timeout: 10_000, stdio: 'ignore' },
    );
    if (r.status === 0) return c;
  }
  return which('python3') ?? 'python3';
}

export function systemInfo(python: string, sandbox?: SandboxInfo): SystemInfo {
  const executables: Executable[] = [];
  for (const name of EXECUTABLES) {
    const p = which(name);
    if (p) executables.push({ name, path: p });
  }
  return {
    os: `${os.type()} ${os.release()}`,
    arch: os.arch(),
    num_cpu: os.cpus().length,
    hostname: os.hostname(),
    executables,
    python,
    ...(sandbox ? { sandbox } : {}),
  };
}

function cpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const c of os.cpus()) {
    const t = c.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

function memAvailable(): number {
  try {
    const m = /MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    /* not Linux */
  }
  return os.freemem();
}

/** CPU usage since the previous call, memory and disk usage of the data dir's file system. */
export class MetricsSampler {
  private last = cpuTimes();
  constructor(private dataDir: string) {}

  sample(running: number): NodeMetrics {
    const now = cpuTimes();
    const dTotal = now.total - this.last.total;
    const dIdle = now.idle - this.last.idle;
    this.last = now;
    const cpu = dTotal > 0 ? Math.max(0, Math.min(100, (1 - dIdle / dTotal) * 100)) : 0;
    const memTotal = os.totalmem();
    const mem = (1 - memAvailable() / memTotal) * 100;
    let disk = 0;
    let diskTotal = 0;
    try {
      const s = statfsSync(this.dataDir);
      diskTotal = s.blocks * s.bsize;
      disk = diskTotal > 0 ? (1 - s.bavail / s.blocks) * 100 : 0;
    } catch {
      /* unknown */
    }
    const r = (n: number) => Math.round(n * 10) / 10;
    return { cpu: r(cpu), mem: r(mem), disk: r(disk), mem_total: memTotal, disk_total: diskTotal, running };
  }
}
