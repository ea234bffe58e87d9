import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

/**
 * Every operation of the OpenAPI document describes its 200 answer, so the document is complete and the answer
 * is serialized by its schema.
 */
type Doc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: unknown }> }>> };

let m: TestMaster;
let operations: { op: string; described: boolean }[];

beforeAll(async () => {
  m = await startTestMaster();
  const doc = (await (await fetch(`${m.url}/api/openapi/json`)).json()) as Doc;
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, o]) => ({
      op: `${method.toUpperCase()} ${path}`,
      described: !!o.responses?.['200']?.content,
    })),
  );
});
afterAll(() => m?.close());

describe('OpenAPI response schemas', () => {
  it('reads the operations of the document', () => {
    expect(operations.length).toBeGreaterThan(100);
  });

  it('every operation describes its 200 answer', () => {
    const missing = operations.filter((o) => !o.described).map((o) => o.op);
    expect(missing, 'operations without a response schema').toEqual([]);
  });
});
