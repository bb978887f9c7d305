import { defineConfig } from 'vitest/config';

/**
 * The two-app-server test (docs/deployment.md): two server processes on one PostgreSQL and one Redis behind nginx.
 * Run by `.ci/run` when PostgreSQL and Redis answer: `npx vitest run --config e2e/multi-server/vitest.config.ts`.
 */
export default defineConfig({
  test: {
    name: 'multi-server',
    root: import.meta.dirname,
    include: ['*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
