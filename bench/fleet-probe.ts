/**
 * Loaded into the benchmark's master process only (`--import`), never part of the product: it answers the fleet
 * benchmark over the process's IPC channel with how late the master's event loop ran (the delay a timer or a
 * request waits behind whatever runs before it) and, on request, a CPU profile of a window.
 *
 * Messages from the benchmark: `{ probe: 'reset' }` starts a new delay window; `{ probe: 'read' }` answers the
 * window's delay in ms (p50, p99, max, mean); `{ probe: 'profile-start' }` / `{ probe: 'profile-stop', file }` write
 * a `.cpuprofile` of the time between them (open it in Chrome's DevTools or read it with bench/fleet-profile.ts).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';

interface ProbeMessage {
  probe?: 'reset' | 'read' | 'profile-start' | 'profile-stop';
  file?: string;
}

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
let inspector: Session | undefined;

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

async function handle(msg: ProbeMessage): Promise<unknown> {
  switch (msg.probe) {
    case 'reset':
      delay.reset();
      return { ok: true };
    case 'read':
      return {
        p50: ms(delay.percentile(50)),
        p99: ms(delay.percentile(99)),
        max: ms(delay.max),
        mean: ms(delay.mean),
      };
    case 'profile-start':
      inspector = new Session();
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
      await inspector.post('Profiler.start');
      return { ok: true };
    case 'profile-stop': {
      if (!inspector) return { ok: false };
      const { profile } = await inspector.post('Profiler.stop');
      writeFileSync(msg.file!, JSON.stringify(profile));
      inspector.disconnect();
      inspector = undefined;
      return { ok: true };
    }
    default:
      return undefined;
  }
}

if (process.send) {
  process.on('message', (msg: ProbeMessage) => {
    if (!msg?.probe) return;
    void handle(msg).then((answer) => process.send?.({ probe: msg.probe, answer }));
  });
  // The channel must not keep a stopping master alive.
  process.channel?.unref();
}
