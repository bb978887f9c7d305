import fs from 'node:fs';
import path from 'node:path';

/** How long a claim waits for the holder named in the lock to go before refusing. */
export const CLAIM_WAIT_MS = 3_000;
const POLL_MS = 100;

/**
 * Two processes on one PGlite directory corrupt it (it has no postmaster to arbitrate), so the directory is claimed
 * by a lock file naming the holder's pid. A lock whose holder is gone is taken over. Right after a kill -9 the
 * holder can still be listed for a moment: killed but not yet torn down, or a zombie until its parent reaps it
 * (`process.kill(pid, 0)` succeeds on both), and a supervisor restarting at once met "in use by process N". So a
 * zombie counts as gone, and a holder still listed is waited for (up to `waitMs`) until it answers ESRCH; one that
 * is still running then is refused, by its pid.
 */
export async function claimDataDir(dir: string, waitMs = CLAIM_WAIT_MS): Promise<() => void> {
  const file = path.join(dir, 'edc.lock');
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt += 1) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(file);
    if (holder !== null && holder !== process.pid && isRunning(holder)) {
      if (Date.now() >= deadline) {
        throw new Error(
          `The embedded database in ${dir} is in use by process ${holder} (still running after ${waitMs / 1000} s); stop it first (or, for the audit check, call GET /api/monitor/audit/verify).`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      continue;
    }
    // No holder (an empty or vanished file, this very pid) or a dead one: take the lock over.
    if (attempt > 20) throw new Error(`Cannot claim ${dir}: its lock file keeps coming back`);
    fs.rmSync(file, { force: true });
  }
}

function holderOf(file: string): number | null {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Whether a process still runs: ESRCH is gone; EPERM is another user's process (running); a zombie is gone. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Linux: the state after the command name in /proc/<pid>/stat; elsewhere no zombie is detected (the wait covers it). */
function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
