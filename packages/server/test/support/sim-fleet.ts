/**
 * A master without an embedded node and a fleet of simulated nodes (the real node protocol), for tests of what the
 * master's work costs as the fleet grows. Heartbeats and offline sweeps are slow, so a test sees only what it does.
 */
import { afterAll, beforeAll } from 'vitest';
import { startTestMaster, type TestMaster } from '../harness.ts';
import { SimNode, type SimNodeOptions } from './sim-node.ts';
import type { TaskRuntime } from '../../src/features/execution/runtime.ts';

export interface SimFleet {
  readonly master: TestMaster;
  readonly runtime: TaskRuntime;
  /** Connects `count` more nodes (100 at a time) and returns them. */
  join(count: number, node?: Pick<SimNodeOptions, 'maxRunners' | 'onAssign'>): Promise<SimNode[]>;
  /** The connected nodes, oldest first. */
  readonly nodes: readonly SimNode[];
  /** Disconnects every node (the master notices on its own time). */
  leaveAll(): void;
}

/** Starts the master before the file's tests and closes it and every node after them. */
export function useSimFleet(key: string): SimFleet {
  let master: TestMaster | undefined;
  const nodes: SimNode[] = [];
  beforeAll(async () => {
    master = await startTestMaster({
      embeddedNode: false,
      nodeKey: key,
      nodeHeartbeatMs: 60_000,
      nodeOfflineMs: 600_000,
    });
  });
  afterAll(async () => {
    for (const n of nodes) n.close();
    await master?.close();
  });
  const started = () => {
    if (!master) throw new Error('the fleet master starts in beforeAll');
    return master;
  };
  return {
    get master() {
      return started();
    },
    get runtime() {
      return started().master.ctx.execution;
    },
    get nodes() {
      return nodes;
    },
    leaveAll() {
      for (const n of nodes.splice(0)) n.close();
    },
    async join(count, node = {}) {
      const fresh = Array.from(
        { length: count },
        (_, i) =>
          new SimNode({ master: started().url, key, name: `${key}-${nodes.length + i}`, maxRunners: 4, ...node }),
      );
      for (let i = 0; i < fresh.length; i += 100) await Promise.all(fresh.slice(i, i + 100).map((s) => s.connect()));
      nodes.push(...fresh);
      return fresh;
    },
  };
}
