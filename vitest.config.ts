import { defineConfig } from 'vitest/config';

/**
 * Test tiers, each with a fixed home: unit tests next to the code; API tests on real stores (the same files run once
 * per engine); e2e journeys in a real Chromium against a started master.
 */
const apiInclude = ['packages/*/test/**/*.test.ts'];

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'unit', include: ['packages/*/src/**/*.test.{ts,tsx}'], environment: 'node' } },
      {
        extends: true,
        test: {
          name: 'api-sqlite',
          include: apiInclude,
          env: { CRAWLDECK_TEST_STORE: 'sqlite' },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'api-postgres',
          include: apiInclude,
          env: { CRAWLDECK_TEST_STORE: 'postgres' },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
