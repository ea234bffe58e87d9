import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { waitFor } from './tasks.helpers.ts';
import { SimNode } from './support/sim-node.ts';
import { listWriterFor } from '../src/features/nodes/list-stream.ts';

// The master's first node list request, paged or whole, compiles nothing: the list's serializer is built and run
// once when the master starts. Built on that request, it compiled the validators of the list's nullable fields
// there, and the first request took tens of ms more than the next ones.
const KEY = 'first-list-key';
let m: TestMaster;
const sims: SimNode[] = [];

/** The validator compiler of the response serializers (their own copy of Ajv), counting its compilations. */
const require = createRequire(import.meta.url);
const ajvCompile = createRequire(require.resolve('fast-json-stringify'))('ajv/dist/compile/index.js') as {
  compileSchema: (...args: unknown[]) => unknown;
};
let compiled = 0;
const compileSchema = ajvCompile.compileSchema;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: false, nodeKey: KEY });
  for (let i = 0; i < 2; i++) sims.push(new SimNode({ master: m.url, key: KEY, name: `first-${i}` }));
  await Promise.all(sims.map((s) => s.connect()));
  const rt = m.master.ctx.execution;
  // The first node beats (metrics: its row fills every field); the second has not yet (metrics null).
  sims[0].heartbeat({ cpu: 7 });
  await waitFor('the heartbeat heard', async () => rt.liveSession(sims[0].nodeId)?.metrics?.cpu === 7);
  ajvCompile.compileSchema = function (this: unknown, ...args: unknown[]) {
    compiled++;
    return compileSchema.apply(this, args);
  };
});
afterAll(async () => {
  ajvCompile.compileSchema = compileSchema;
  for (const s of sims) s.close();
  await m?.close();
});

describe('the master’s first node list request', () => {
  it('finds the list’s serializer built, and compiles no validator', async () => {
    expect(listWriterFor(m.master.ctx).prepared).toBe(true);
    const paged = await m.api('GET', '/nodes', { query: { page_num: 1, page_size: 10 } });
    const whole = await m.api('GET', '/nodes');
    expect(compiled).toBe(0);
    for (const r of [paged, whole]) {
      expect(r.status).toBe(200);
      const rows = r.body.data as { name: string; metrics: { cpu: number } | null; systemInfo: unknown }[];
      expect(rows.map((n) => n.name).sort()).toEqual(['first-0', 'first-1']);
      expect(rows.find((n) => n.name === 'first-0')?.metrics?.cpu).toBe(7);
      expect(r.body.total).toBe(2);
    }
  });
});
