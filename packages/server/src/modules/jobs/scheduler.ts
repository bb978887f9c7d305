import { and, eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { scheduledRuns } from '../../db/schema/index.js';
import { workerName } from './job-core.js';
import type { ScheduledTask } from '../../shared/scheduled-task.js';

export type { ScheduledTask } from '../../shared/scheduled-task.js';

export interface SchedulerDeps {
  db: Db;
  clock: () => Date;
  log: (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, msg: string) => void;
}

/** The period a moment falls in, as the claim's key: `2026-11-23` or `2026-11-23T08`. */
export function periodOf(every: Exclude<ScheduledTask['every'], 'tick'>, now: Date): string {
  const iso = now.toISOString();
  return every === 'day' ? iso.slice(0, 10) : iso.slice(0, 13);
}

/** Claims of runs are kept this long (they say what ran when), then deleted by the scheduler itself. */
export const SCHEDULED_RUN_RETENTION_DAYS = 90;

/**
 * Runs recurring tasks once across several app servers: a tick tries to insert the row (task, period); the
 * server whose insert wins runs the task, every other finds the row and skips. Works on PostgreSQL and on
 * the embedded database alike, with or without Redis. A server that dies mid-task leaves its period claimed:
 * the task runs again in the next period, so tasks are written to catch up (cleanup of everything expired,
 * not of one day's share).
 */
export function createScheduler(deps: SchedulerDeps, tasks: readonly ScheduledTask[]) {
  const me = workerName();
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<unknown> | null = null;

  async function runTick(task: ScheduledTask, now: Date): Promise<'ran'> {
    try {
      const outcome = await task.run(now);
      // Said only when it did something: a line a minute per server would bury the log.
      if (outcome) deps.log('info', { task: task.name, outcome }, 'scheduled task ran');
    } catch (err) {
      deps.log('error', { task: task.name, err: (err as Error)?.name }, 'scheduled task failed');
    }
    return 'ran';
  }

  async function runTask(task: ScheduledTask, now: Date): Promise<'ran' | 'skipped'> {
    if (task.every === 'tick') return runTick(task, now);
    const period = periodOf(task.every, now);
    const [claim] = await deps.db
      .insert(scheduledRuns)
      .values({ task: task.name, period, claimedBy: me, startedAt: now })
      .onConflictDoNothing()
      .returning({ task: scheduledRuns.task });
    if (!claim) return 'skipped';
    const key = and(eq(scheduledRuns.task, task.name), eq(scheduledRuns.period, period));
    try {
      const outcome = await task.run(now);
      await deps.db
        .update(scheduledRuns)
        .set({ finishedAt: deps.clock(), outcome: outcome.slice(0, 500) })
        .where(key);
      deps.log('info', { task: task.name, period, outcome }, 'scheduled task ran');
    } catch (err) {
      await deps.db
        .update(scheduledRuns)
        .set({ finishedAt: deps.clock(), failed: true, outcome: (err as Error)?.name ?? 'error' })
        .where(key);
      deps.log('error', { task: task.name, period, err: (err as Error)?.name }, 'scheduled task failed');
    }
    return 'ran';
  }

  /** One pass over every task; answers what each did in this process. */
  async function tick(): Promise<Record<string, 'ran' | 'skipped'>> {
    const now = deps.clock();
    const done: Record<string, 'ran' | 'skipped'> = {};
    for (const task of tasks) {
      try {
        done[task.name] = await runTask(task, now);
      } catch (err) {
        deps.log('error', { task: task.name, err: (err as Error)?.name }, 'scheduled task could not be claimed');
      }
    }
    return done;
  }

  return {
    tick,
    /** Ticks now and then every `everyMs` (default a minute); a tick still running is not overlapped. */
    start(everyMs = 60_000) {
      const go = () => {
        if (ticking) return;
        ticking = tick().finally(() => (ticking = null));
      };
      go();
      timer = setInterval(go, everyMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      await ticking;
    },
  };
}

/** The scheduler's own housekeeping: claims older than the retention go. */
export function scheduledRunsCleanup(db: Db): ScheduledTask {
  return {
    name: 'cleanup.scheduled-runs',
    every: 'day',
    async run(now) {
      const before = new Date(now.getTime() - SCHEDULED_RUN_RETENTION_DAYS * 86_400_000);
      const gone = await db
        .delete(scheduledRuns)
        .where(lt(scheduledRuns.startedAt, before))
        .returning({ task: scheduledRuns.task });
      return `${gone.length} old run records deleted`;
    },
  };
}
