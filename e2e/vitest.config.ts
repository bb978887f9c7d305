import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'e2e',
    root: import.meta.dirname,
    include: ['**/*.e2e.ts'],
    // The server's first start, once for the run: each file's platform starts on a copy of its data directory.
    globalSetup: ['template-data-dir.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One browser and one server at a time: the machine has two cores.
    fileParallelism: false,
  },
});
