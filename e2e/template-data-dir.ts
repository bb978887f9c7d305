import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { runServer } from './platform-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A data directory the server started on once and stopped: migrated, seeded, its keys written. */
    e2eTemplateDataDir: string;
  }
}

/**
 * The first start of a server on an empty data directory (migrations from the first, the seed, the keys) takes
 * most of a platform's start; the run makes it once, for real, and every test file's platform starts on a copy.
 */
export default async function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-e2e-template-'));
  const server = await runServer(dir, path.resolve(import.meta.dirname, '..', 'packages', 'web', 'dist'));
  await server.stop();
  fs.rmSync(path.join(dir, 'edc.lock'), { force: true });
  project.provide('e2eTemplateDataDir', dir);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
