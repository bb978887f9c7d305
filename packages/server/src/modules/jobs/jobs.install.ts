import type { AppContext } from '../../app-context.js';
import type { App } from '../../http/types.js';
import { jobFiles } from './job-files.js';
import { jobsRoutes } from './jobs.routes.js';
import { scheduledTasks } from './scheduled-tasks.js';
import { createScheduler, type ScheduledTask } from './scheduler.js';
import { registerTestJobs, testJobsEnabled } from './test-jobs.js';

/**
 * The job routes, the test-only job kind when EDC_TEST_JOBS=1, and the queue's shutdown with the app:
 * running jobs are put back in the queue before the database closes.
 */
export function installJobs(app: App, ctx: AppContext) {
  const log = app.log.child({ module: 'jobs' });
  ctx.jobs.useLog((level, fields, msg) => log[level](fields, msg));
  jobsRoutes(app, ctx);
  if (testJobsEnabled()) registerTestJobs(ctx.jobs);
  app.addHook('onClose', () => ctx.jobs.close());
}

/**
 * The recurring tasks, ticking every minute on every app server, each run once per period: this module's own
 * housekeeping (scheduled-tasks.ts), then the other modules' tasks, which the composition root (main.ts) collects
 * so this module imports none of them.
 */
export function startScheduler(app: App, ctx: AppContext, moduleTasks: readonly ScheduledTask[]) {
  const log = app.log.child({ module: 'scheduler' });
  const scheduler = createScheduler(
    { db: ctx.db, clock: ctx.clock, log: (level, fields, msg) => log[level](fields, msg) },
    [...scheduledTasks(ctx.db, jobFiles(ctx.files)), ...moduleTasks],
  );
  scheduler.start();
  return scheduler;
}
