import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A web test file's environment can be torn down while React's scheduler still holds work queued by an antd
    // message or notification root (a request of the page answering after the file's last test): it then throws
    // "window is not defined" from the scheduler after every test has passed. Only that error is let through;
    // any other unhandled error still fails the run.
    onUnhandledError(error) {
      const stack = 'stack' in error && typeof error.stack === 'string' ? error.stack : '';
      if (error.message === 'window is not defined' && /react-dom|scheduler/.test(stack)) return false;
    },
    projects: [
      // Date rules must hold wherever the server or the browser runs: core runs under both zones.
      // Property tests run a fixed budget of cases (src/test/property-budget.ts); a loaded two-core CI machine
      // took more than vitest's 5 s default for some of them, so core gets the 30 s the other projects have.
      {
        test: {
          name: 'core',
          root: 'packages/core',
          include: ['src/**/*.test.ts'],
          env: { TZ: 'UTC' },
          setupFiles: ['src/test/property-budget.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'core-shanghai',
          root: 'packages/core',
          include: ['src/**/*.test.ts'],
          env: { TZ: 'Asia/Shanghai' },
          setupFiles: ['src/test/property-budget.ts'],
          testTimeout: 30_000,
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
