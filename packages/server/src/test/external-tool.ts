import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The programs on the other end of our files and API (PyCap, PSPP, R haven, xmllint). Their tests run wherever
 * the program is installed; `.ci/run` installs them and sets REQUIRE_EXTERNAL_TOOLS=1, so there a missing program
 * fails the test instead of skipping it.
 */

/** `../shared/vendor` beside the repository (or EDC_VENDOR_DIR): stock third-party clients and schemas (not part of the project). */
export const VENDOR_DIR =
  process.env.EDC_VENDOR_DIR ?? path.resolve(fileURLToPath(import.meta.url), '../../../../../../shared/vendor');

/**
 * The Python that has Debian's python3-requests: a version manager's python3 (pyenv) may come first on PATH
 * without the packages `.ci/run` installs.
 */
export const PYTHON =
  ['/usr/bin/python3', 'python3'].find(
    (cmd) => spawnSync(cmd, ['-c', 'import requests, semantic_version'], { stdio: 'ignore' }).status === 0,
  ) ?? 'python3';

const probes: Record<string, string[]> = {
  python3: [PYTHON, '-c', 'import requests, semantic_version'],
  pandas: [PYTHON, '-c', 'import pandas'],
  pspp: ['pspp', '--version'],
  R: ['Rscript', '-e', 'library(haven)'],
  xmllint: ['xmllint', '--version'],
};
export type ExternalTool = keyof typeof probes & string;

const known = new Map<string, boolean>();

export function hasTool(tool: ExternalTool): boolean {
  if (!known.has(tool)) {
    const [cmd, ...args] = probes[tool]!;
    known.set(tool, spawnSync(cmd!, args, { stdio: 'ignore' }).status === 0);
  }
  return known.get(tool)!;
}

/** Whether a test needing these tools should be skipped here; throws when CI requires them and one is missing. */
export function skipWithout(...tools: ExternalTool[]): boolean {
  const missing = tools.filter((t) => !hasTool(t));
  if (missing.length === 0) return false;
  if (process.env.REQUIRE_EXTERNAL_TOOLS === '1') {
    throw new Error(`REQUIRE_EXTERNAL_TOOLS=1 but not installed: ${missing.join(', ')}`);
  }
  return true;
}

/** Runs a program to its end and returns what it printed; a non-zero exit throws with its output. */
export function runTool(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
) {
  const result = spawnSync(cmd, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    input: options.input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${result.status}\n${result.stdout}\n${result.stderr}`);
  }
  return { stdout: result.stdout, stderr: result.stderr };
}

/**
 * runTool without blocking: for a program that calls back into this process (a client of the test app listening on
 * loopback), which spawnSync would leave waiting for a server that cannot answer.
 */
export function runToolAsync(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code ?? signal}\n${stdout}\n${stderr}`));
    });
  });
}
