import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { serverArgs } from '../server-command.js';
import { freePort } from '../free-port.js';

/**
 * The production layout of docs/deployment.md in miniature: two app server processes (the real
 * packages/server entry) on one PostgreSQL database and one Redis, behind nginx.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const ADMIN = '13800000000';
export const INITIAL_PASSWORD = 'Start@123';
export const POSTGRES_URL = process.env.MULTI_SERVER_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.MULTI_SERVER_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.setTimeout(1_000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

/** Polls `check` until it answers true; throws with `what` and the processes' output when `ms` run out. */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 60_000, output = () => '') {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function httpAnswers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

export interface AppServer {
  name: string;
  port: number;
  url: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<void>;
}

function startServer(name: string, env: Record<string, string>): Promise<AppServer> {
  return freePort().then((port) => {
    const child = spawn(process.execPath, serverArgs(), {
      cwd: ROOT,
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return { name, port, url: `http://127.0.0.1:${port}`, child, output: () => output, exited };
  });
}

function nginxConfig(dir: string, port: number, upstreams: number[]): string {
  // Workers of an nginx started as root run as `nobody` unless told; they need the temp paths of this directory.
  const user = process.getuid?.() === 0 ? 'user root;' : '';
  return `daemon off;
${user}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  upstream edc {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=60s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 20m;
    location / {
      proxy_pass http://edc;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # A server that dies mid-request: the request goes to the next one (PUT saves carry a requestId).
      proxy_next_upstream error timeout http_502 http_503;
      proxy_connect_timeout 2s;
      add_header X-Upstream $upstream_addr always;
    }
    location /socket.io/ {
      proxy_pass http://edc;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $host;
      proxy_read_timeout 3600s;
    }
  }
}
`;
}

export interface Cluster {
  /** nginx's address, in front of both servers. */
  baseUrl: string;
  servers: [AppServer, AppServer];
  databaseUrl: string;
  db: pg.Client;
  output(): string;
  stop(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-multi-'));
  const database = `edc_ms_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  // The two-login set-up of docs/deployment.md: the owner migrates, the servers' queries use a login of their own,
  // a member of the application role (created here if no server has created it yet on this PostgreSQL server).
  const appLogin = `${database}_web`;
  const appPassword = crypto.randomBytes(12).toString('hex');
  await admin.query(`do $$ begin create role edc_app nologin;
    exception when duplicate_object or unique_violation then null; end $$`);
  await admin.query(`create role ${appLogin} login password '${appPassword}' in role edc_app`);
  const appUrl = new URL(databaseUrl);
  appUrl.username = appLogin;
  appUrl.password = appPassword;
  const dataDir = path.join(dir, 'data');
  const env = {
    DATABASE_URL: databaseUrl,
    DATABASE_APP_URL: appUrl.toString(),
    REDIS_URL,
    // Shared by every app server: one signing secret, one data key, one file store.
    DATA_DIR: dataDir,
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    EDC_DATA_KEY: crypto.randomBytes(32).toString('hex'),
    WEB_DIST: path.join(dir, 'no-web'),
    EDC_CAPTCHA: 'off',
    EDC_ADMIN_PASSWORD: INITIAL_PASSWORD,
    TRUST_PROXY: 'true',
    // The counting job the jobs test enqueues (never registered in production).
    EDC_TEST_JOBS: '1',
    LOG_LEVEL: 'warn',
    TZ: 'UTC',
  };
  const servers = (await Promise.all([
    // Both start at once: migrations and seeding must serialise themselves. Only the first seeds the demo study.
    startServer('server-1', { ...env, EDC_DEMO: 'on' }),
    startServer('server-2', { ...env, EDC_DEMO: 'off' }),
  ])) as [AppServer, AppServer];

  const port = await freePort();
  const configFile = path.join(dir, 'nginx.conf');
  fs.writeFileSync(
    configFile,
    nginxConfig(
      dir,
      port,
      servers.map((s) => s.port),
    ),
  );
  // Debian's nginx lives in /usr/sbin, which is not on every user's PATH.
  const nginxBinary = process.env.NGINX ?? (fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx');
  const nginx = spawn(nginxBinary, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let nginxOutput = '';
  nginx.stdout!.on('data', (d: Buffer) => (nginxOutput += d.toString()));
  nginx.stderr!.on('data', (d: Buffer) => (nginxOutput += d.toString()));
  nginx.once('error', (err) => (nginxOutput += `cannot start ${nginxBinary}: ${err.message}\n`));
  const nginxExited = new Promise<void>((resolve) => {
    nginx.once('exit', () => resolve());
    nginx.once('error', () => resolve());
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const output = () =>
    [
      ...servers.map(
        (s) => `--- ${s.name} (exit ${s.child.exitCode ?? s.child.signalCode ?? 'running'})\n${s.output()}`,
      ),
      `--- nginx\n${nginxOutput}${fs.existsSync(path.join(dir, 'error.log')) ? fs.readFileSync(path.join(dir, 'error.log'), 'utf8') : ''}`,
    ].join('\n');

  const db = new pg.Client({ connectionString: databaseUrl });
  const stop = async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
    if (nginx.exitCode === null) nginx.kill('SIGTERM');
    await Promise.all([...servers.map((s) => s.exited), nginxExited]);
    await db.end().catch(() => undefined);
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.query(`drop role if exists ${appLogin}`);
    await admin.end();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const s of servers) {
      await until(
        `${s.name} to answer`,
        async () => {
          if (s.child.exitCode !== null) throw new Error(`${s.name} exited early\n${output()}`);
          return httpAnswers(`${s.url}/api/ignore/common/captcha`);
        },
        90_000,
        output,
      );
    }
    await until('nginx to answer', () => httpAnswers(`${baseUrl}/api/ignore/common/captcha`), 30_000, output);
    await db.connect();
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, servers, databaseUrl, db, output, stop };
}
