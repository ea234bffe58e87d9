import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';

/**
 * Every route declares the shape of its answer: Fastify serialises by it (undescribed properties are dropped) and
 * the OpenAPI document shows it. This walks the document and finds the operations without a 200 schema.
 * The rooms listed in DESCRIBED must have none; the count over the whole API is printed for the record.
 */
const DESCRIBED: RegExp[] = [
  /^(POST|GET) \/api\/(login|logout|me|version|setting|docs|feedback|tokens|variables?|webhooks|users|users-add|actions)(\/|$)/,
  /^(PUT|DELETE) \/api\/(users|users-add|actions|feedback|tokens|variable|webhooks)(\/|$)/,
  /^\w+ \/api\/(releases\/latest|stats\/home|system\/|config_spiders)/,
  /^\w+ \/api\/spiders\/\{id\}\/(git|scrapy|stats|preview_crawl|extract_fields)(\/|$)/,
  /^\w+ \/api\/spiders\/import\/github$/,
];

type Operation = {
  responses?: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>;
};

let m: TestMaster;
beforeAll(async () => {
  m = await startTestMaster();
});
afterAll(async () => {
  await m?.close();
});

describe('response schemas', () => {
  it('are declared on every route of the described rooms, with the envelope and its data', async () => {
    const doc = (await (await fetch(`${m.url}/api/openapi/json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const ops = Object.entries(doc.paths).flatMap(([p, byMethod]) =>
      Object.entries(byMethod).map(([meth, op]) => ({ route: `${meth.toUpperCase()} ${p}`, op })),
    );
    const described = (op: Operation) =>
      !!op.responses?.['200']?.content?.['application/json']?.schema?.properties?.data;
    const mine = ops.filter((o) => DESCRIBED.some((r) => r.test(o.route)));
    expect(mine.length).toBeGreaterThan(50);
    expect(mine.filter((o) => !described(o.op)).map((o) => o.route)).toEqual([]);
    const missing = ops.filter((o) => !described(o.op));
    console.log(`operations with a response schema: ${ops.length - missing.length} of ${ops.length}`);
  });
});
