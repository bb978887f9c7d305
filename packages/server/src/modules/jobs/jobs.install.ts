import type { AppContext } from '../../app-context.js';
import { embeddedMaintenance } from '../../db/maintenance.js';
import type { App } from '../../http/types.js';
import { calendarRemindersTask } from '../calendar/calendar.service.js';
import { unconfirmedObjectsCleanup } from '../files/object-upload.service.js';
import { pushVisitChanges } from '../follow/follow-push.js';
import { studyFiguresFold } from '../home/study-figures.js';
import { jobFiles } from './job-files.js';
import { jobsRoutes } from './jobs.routes.js';
import { scheduledTasks } from './scheduled-tasks.js';
import { createScheduler } from './scheduler.js';
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

/** The recurring tasks (scheduled-tasks.ts), ticking every minute on every app server, each run once per period. */
export function startScheduler(app: App, ctx: AppContext) {
  const log = app.log.child({ module: 'scheduler' });
  const scheduler = createScheduler(
    { db: ctx.db, clock: ctx.clock, log: (level, fields, msg) => log[level](fields, msg) },
    [
      ...scheduledTasks(ctx.db, jobFiles(ctx.files), (changes) => pushVisitChanges(ctx, changes)),
      calendarRemindersTask(ctx),
      unconfirmedObjectsCleanup(ctx),
      embeddedMaintenance(ctx.db),
      studyFiguresFold(ctx.db),
    ],
  );
  scheduler.start();
  return scheduler;
}
