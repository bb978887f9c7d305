import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Result files of jobs, one per job, under DATA_DIR/job-results. Kept apart from the uploaded clinical files
 * (they expire; uploads never do). File storage is not yet one interface in the context: when it is, this
 * moves behind it, and several app servers need that shared store (or one shared DATA_DIR) for a file
 * written on one server to be downloaded through another.
 */
export function jobFiles(dataDir: string) {
  const dir = path.join(dataDir, 'job-results');
  // The job id is a UUID the server generated; checked anyway so no name can leave the directory.
  const pathOf = (jobId: string) => {
    if (!/^[0-9a-f-]{36}$/.test(jobId)) throw new Error('bad job id');
    return path.join(dir, jobId);
  };
  return {
    dir,
    /** Writes to a temporary name first, so a crash mid-write never leaves a half file under the job's name. */
    async write(jobId: string, data: Buffer | Readable): Promise<number> {
      await fs.promises.mkdir(dir, { recursive: true });
      const temp = path.join(dir, `.${jobId}.${crypto.randomBytes(4).toString('hex')}.part`);
      try {
        await pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, fs.createWriteStream(temp));
        await fs.promises.rename(temp, pathOf(jobId));
      } catch (err) {
        await fs.promises.rm(temp, { force: true });
        throw err;
      }
      return (await fs.promises.stat(pathOf(jobId))).size;
    },
    open(jobId: string): Readable | null {
      const file = pathOf(jobId);
      return fs.existsSync(file) ? fs.createReadStream(file) : null;
    },
    async remove(jobId: string): Promise<void> {
      await fs.promises.rm(pathOf(jobId), { force: true });
    },
    /** Files named after no job any more, and temporary files left by a crash, older than `before`. */
    async strays(known: (jobId: string) => Promise<boolean>, before: Date): Promise<string[]> {
      if (!fs.existsSync(dir)) return [];
      const out: string[] = [];
      for (const name of await fs.promises.readdir(dir)) {
        const file = path.join(dir, name);
        const stat = await fs.promises.stat(file);
        if (stat.mtime >= before) continue;
        if (name.endsWith('.part') || !(await known(name))) out.push(file);
      }
      return out;
    },
  };
}

export type JobFiles = ReturnType<typeof jobFiles>;
