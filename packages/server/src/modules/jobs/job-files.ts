import { Readable, Transform } from 'node:stream';
import type { FileStorage } from '../../shared/file-storage.js';

/**
 * Result files of jobs, one per job, in the file storage (`ctx.files`) under `job-results/<jobId>`: apart from
 * the uploaded clinical files, since these expire and uploads never do. A re-run writes the same key again.
 */
export function jobFiles(storage: FileStorage) {
  // The job id is a UUID the server generated; checked anyway so no name can leave the folder.
  const keyOf = (jobId: string) => {
    if (!/^[0-9a-f-]{36}$/.test(jobId)) throw new Error('bad job id');
    return `job-results/${jobId}`;
  };
  return {
    keyOf,
    /** Stores the file (whole or not at all) and answers its size in bytes. */
    async write(jobId: string, data: Buffer | Readable): Promise<number> {
      let size = 0;
      const counted = (Buffer.isBuffer(data) ? Readable.from([data]) : data).pipe(
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            size += chunk.length;
            done(null, chunk);
          },
        }),
      );
      await storage.put(keyOf(jobId), counted);
      return size;
    },
    open: (jobId: string) => storage.get(keyOf(jobId)),
    remove: (jobId: string) => storage.delete(keyOf(jobId)),
  };
}

export type JobFiles = ReturnType<typeof jobFiles>;
