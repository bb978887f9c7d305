import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { serverArgs } from './server-command.js';
import { freePort } from './free-port.js';

const ROOT = path.resolve(import.meta.dirname, '..');
export const INITIAL_PASSWORD = 'Start@123';

export interface ServerOptions {
  timeZone?: string;
  clockFile?: string;
  env?: Record<string, string>;
}

export interface ServerProcess {
  baseUrl: string;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The real server, as `npm start` runs it, on the given data directory, once it answers. It runs in UTC unless
 * told otherwise, while browsers default to Asia/Shanghai: every page is tested with the two zones apart.
 */
export async function runServer(dataDir: string, webDist: string, options: ServerOptions = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, serverArgs(), {
    cwd: ROOT,
    env: {
      ...process.env,
      TZ: options.timeZone ?? 'UTC',
      DATABASE_URL: '',
      REDIS_URL: '',
      DATA_DIR: dataDir,
      WEB_DIST: webDist,
      PORT: String(port),
      HOST: '127.0.0.1',
      EDC_CAPTCHA: 'off',
      // The counting job kind and its start route (modules/jobs/test-jobs.ts), for the 任务 drawer's test.
      EDC_TEST_JOBS: '1',
      // The server's clock runs ahead by the milliseconds written in this file (shared/test-clock.ts).
      ...(options.clockFile ? { EDC_TEST_CLOCK_FILE: options.clockFile } : {}),
      EDC_ADMIN_PASSWORD: INITIAL_PASSWORD,
      LOG_LEVEL: 'warn',
      // A test's own settings (the object store of the external network mode).
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    try {
      const res = await fetch(`${baseUrl}/api/ignore/common/captcha`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    baseUrl,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
