import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './client.js';
import { claimDataDir } from './data-dir-lock.js';

const children: ChildProcess[] = [];
const dirs: string[] = [];

function dataDir(holder?: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-lock-'));
  dirs.push(dir);
  if (holder !== undefined) fs.writeFileSync(path.join(dir, 'edc.lock'), String(holder));
  return dir;
}

/** A process standing for a server holding the directory: it runs until killed or for `seconds`. */
function holderProcess(seconds = 30) {
  const child = spawn(process.execPath, ['-e', `setTimeout(() => {}, ${seconds * 1000})`], { stdio: 'ignore' });
  children.push(child);
  return child;
}

const lockOf = (dir: string) => Number(fs.readFileSync(path.join(dir, 'edc.lock'), 'utf8'));

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the embedded database directory lock', () => {
  it('a server restarted right after a kill -9 of the one holding the directory claims it (no "in use by process")', async () => {
    const killed = holderProcess();
    const dir = dataDir(killed.pid!);
    // Claimed in the same tick as the kill: the process is still listed (dying, then a zombie until reaped).
    killed.kill('SIGKILL');
    const release = await claimDataDir(dir);
    expect(lockOf(dir)).toBe(process.pid);
    release();
    expect(fs.existsSync(path.join(dir, 'edc.lock'))).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'a holder that is a zombie (exited, never reaped) counts as gone',
    async () => {
      // sh starts a short sleep in the background, prints its pid and becomes a long sleep that never reaps it.
      const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      children.push(parent);
      const zombie = await new Promise<number>((resolve) => parent.stdout!.once('data', (d) => resolve(Number(d))));
      await expect
        .poll(() => fs.readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]![0], { timeout: 2000 })
        .toBe('Z');
      const dir = dataDir(zombie);
      const started = Date.now();
      const release = await claimDataDir(dir);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(lockOf(dir)).toBe(process.pid);
      release();
    },
  );

  it('a holder that ends within the wait is waited for; one still running is refused by its pid, its lock kept', async () => {
    const ending = holderProcess(0.3);
    const waited = dataDir(ending.pid!);
    const release = await claimDataDir(waited, 3000);
    expect(lockOf(waited)).toBe(process.pid);
    release();

    const running = holderProcess();
    const held = dataDir(running.pid!);
    await expect(claimDataDir(held, 300)).rejects.toThrow(
      `The embedded database in ${held} is in use by process ${running.pid} (still running after 0.3 s)`,
    );
    expect(lockOf(held)).toBe(running.pid);
    // The server's start goes through the same claim (after the default wait).
    await expect(openDatabase({ dataDir: held })).rejects.toThrow(`is in use by process ${running.pid}`);
    expect(lockOf(held)).toBe(running.pid);
  });
});
