/**
 * Server start: the cold start on an existing data directory (spawn until the API answers) and the idle
 * resident memory of the server's process tree 10 s after it answers, for the compiled server
 * (`packages/server/dist/main.js`, built by `npm run build`) and, beside it, the TypeScript sources run through
 * tsx. On the embedded PGlite, and on PostgreSQL when one answers (in a scratch database of its own name,
 * dropped at the end). Targets (issue 16): idle RSS ≤ 200 MB, cold start ≤ 2 s. Beside the wall time, the CPU time
 * the server used until it answered, which a loaded machine does not inflate. Prints figures; no thresholds.
 *
 * `BENCH_STARTUP_MODES=compiled` (or `source`) measures one way only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../e2e/free-port.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const STARTS = 3;
const IDLE_MS = 10_000;
const COMPILED = path.join(ROOT, 'packages', 'server', 'dist', 'main.js');

type Mode = 'compiled' | 'source';
const COMMANDS: Record<Mode, string[]> = {
  compiled: [COMPILED],
  source: ['--import', 'tsx', 'packages/server/src/main.ts'],
};

/** Resident memory of a process and every descendant (tsx runs esbuild as child processes), from /proc. */
function treeRss(rootPid: number): { mb: number; processes: number } {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      rss.set(Number(entry), kb);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended meanwhile
    }
  }
  let kb = 0;
  let processes = 0;
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    kb += rss.get(pid) ?? 0;
    processes += 1;
    queue.push(...(children.get(pid) ?? []));
  }
  return { mb: kb / 1024, processes };
}

/** CPU time (user + system) a process has used so far, from /proc: what a start costs whatever the load. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, counted in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Started {
  child: ChildProcess;
  ms: number;
  cpu: number;
}

async function start(mode: Mode, env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(process.execPath, COMMANDS[mode], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', EDC_CAPTCHA: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/ignore/common/captcha`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, ms: performance.now() - began, cpu: cpuSeconds(child.pid!) };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(label: string, mode: Mode, env: Record<string, string>) {
  // The first start creates (initdb on PGlite), migrates and seeds the database: not what is measured.
  const first = await start(mode, env);
  await stop(first.child);
  const starts: number[] = [];
  const cpu: number[] = [];
  const rss: number[] = [];
  let processes = 0;
  for (let i = 0; i < STARTS; i++) {
    const started = await start(mode, env);
    const { child } = started;
    starts.push(started.ms);
    cpu.push(started.cpu);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const tree = treeRss(child.pid!);
    rss.push(tree.mb);
    processes = tree.processes;
    await stop(child);
  }
  console.log(
    `${label.padEnd(34)} first start ${(first.ms / 1000).toFixed(1).padStart(5)} s   cold start ${(median(starts) / 1000).toFixed(2).padStart(5)} s (target ≤ 2 s), CPU ${median(cpu).toFixed(2)} s   idle RSS ${median(rss).toFixed(0).padStart(4)} MB in ${processes} process${processes === 1 ? '' : 'es'} (target ≤ 200 MB)`,
  );
}

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function main() {
  const modes = (process.env.BENCH_STARTUP_MODES ?? 'compiled,source').split(',') as Mode[];
  if (modes.includes('compiled') && !fs.existsSync(COMPILED)) {
    console.log(`${COMPILED} is missing: run \`npm run build\` first; measuring the sources only`);
    modes.splice(modes.indexOf('compiled'), 1);
  }
  console.log(
    `server start, median of ${STARTS} starts on an existing database; RSS ${IDLE_MS / 1000} s after it answers`,
  );
  for (const mode of modes) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-startup-'));
    try {
      await measure(`PGlite, ${mode}`, mode, { DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (!(await postgresAnswers())) {
    console.log(`PostgreSQL does not answer at ${PG_URL}: skipped`);
    return;
  }
  for (const mode of modes) {
    const name = `edc_startup_${process.pid}_${mode}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-startup-'));
    try {
      // One superuser login is enough to time a start (docs/deployment.md sets up two for production).
      await measure(`PostgreSQL, ${mode}`, mode, {
        DATA_DIR: dataDir,
        DATABASE_URL: url.href,
        EDC_ALLOW_OWNER_LOGIN: 'true',
        REDIS_URL: '',
      });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }
}

await main();
