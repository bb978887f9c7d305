import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      // Date rules must hold wherever the server or the browser runs: core runs under both zones.
      { test: { name: 'core', root: 'packages/core', include: ['src/**/*.test.ts'], env: { TZ: 'UTC' } } },
      {
        test: {
          name: 'core-shanghai',
          root: 'packages/core',
          include: ['src/**/*.test.ts'],
          env: { TZ: 'Asia/Shanghai' },
        },
      },
      {
        test: {
          name: 'server',
          root: 'packages/server',
          include: ['src/**/*.test.ts'],
          globalSetup: ['src/test/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'web',
          root: 'packages/web',
          include: ['src/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          setupFiles: ['src/test/setup.ts'],
          // Rendering antd pages on a loaded two-core CI machine takes seconds; vitest's 5 s default flaked.
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
