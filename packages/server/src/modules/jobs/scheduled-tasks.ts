import { and, eq, isNotNull, lt, lte } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appliedRequests, jobs, kvEntries, sessions } from '../../db/schema/index.js';
import type { JobFiles } from './job-files.js';
import { scheduledRunsCleanup, type ScheduledTask } from './scheduler.js';

const DAY = 86_400_000;

/** A job's result file can be downloaded for this many days after the job ended; the job's record stays. */
export const JOB_RESULT_RETENTION_DAYS = 7;
/**
 * A save's request id answers a retry for this long. Browsers retry a lost answer within minutes; the month
 * covers a tablet that comes back online much later, and a save older than that meets the record's version
 * check anyway.
 */
export const APPLIED_REQUEST_RETENTION_DAYS = 30;
/** An expired session row stays a day, so a refresh racing its expiry still meets the row and is refused by it. */
export const SESSION_GRACE_DAYS = 1;

export function expiredSessionsCleanup(db: Db): ScheduledTask {
  return {
    name: 'cleanup.sessions',
    every: 'hour',
    async run(now) {
      const gone = await db
        .delete(sessions)
        .where(lt(sessions.expiresAt, new Date(now.getTime() - SESSION_GRACE_DAYS * DAY)))
        .returning({ id: sessions.sessionId });
      return `${gone.length} expired sessions deleted`;
    },
  };
}

export function expiredEntriesCleanup(db: Db): ScheduledTask {
  return {
    name: 'cleanup.short-lived',
    every: 'hour',
    async run(now) {
      const kv = await db.delete(kvEntries).where(lte(kvEntries.expiresAt, now)).returning({ key: kvEntries.key });
      const applied = await db
        .delete(appliedRequests)
        .where(lt(appliedRequests.createdAt, new Date(now.getTime() - APPLIED_REQUEST_RETENTION_DAYS * DAY)))
        .returning({ id: appliedRequests.requestId });
      return `${kv.length} expired entries and ${applied.length} old save request ids deleted`;
    },
  };
}

export function jobResultCleanup(db: Db, files: JobFiles): ScheduledTask {
  return {
    name: 'cleanup.job-results',
    every: 'day',
    async run(now) {
      const before = new Date(now.getTime() - JOB_RESULT_RETENTION_DAYS * DAY);
      const expired = await db
        .select({ jobId: jobs.jobId })
        .from(jobs)
        .where(and(isNotNull(jobs.resultFileName), lt(jobs.finishedAt, before)));
      for (const { jobId } of expired) {
        await files.remove(jobId);
        await db
          .update(jobs)
          .set({ resultFileName: null, resultContentType: null, resultSize: null })
          .where(eq(jobs.jobId, jobId));
      }
      return `${expired.length} expired result files deleted`;
    },
  };
}

/**
 * The server's own housekeeping, in the order a tick runs it. The other modules' recurring tasks are theirs: the
 * composition root (main.ts) collects them and hands them to startScheduler after these.
 */
export function scheduledTasks(db: Db, files: JobFiles): ScheduledTask[] {
  return [expiredSessionsCleanup(db), expiredEntriesCleanup(db), jobResultCleanup(db, files), scheduledRunsCleanup(db)];
}
