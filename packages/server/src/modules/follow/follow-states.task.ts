import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import type { ScheduledTask } from '../../shared/scheduled-task.js';
import { refreshStates } from './follow-events.service.js';
import { pushVisitChanges, type VisitChanges } from './follow-push.js';

/**
 * Follow-up visit states (未到期 → 待随访 → 已超窗) move with the date in each study's own zone. The claim periods
 * are UTC days, and a study's midnight falls inside one (Shanghai's at 16:00 UTC), so the task runs every hour:
 * a visit turns overdue within the hour after local midnight, not up to a day later. It recomputes from the
 * dates, so a missed hour or day is caught up by the next run.
 */
export function followStates(db: Db, pushCounts?: (changes: VisitChanges) => Promise<void>): ScheduledTask {
  return {
    name: 'follow.states',
    every: 'hour',
    async run(now) {
      const changes: VisitChanges = new Map();
      const changed = await refreshStates(db, now, undefined, changes);
      // The people responsible for the visits that moved see their top-bar count change (SHELL-22).
      if (pushCounts) await pushCounts(changes);
      return `${changed} follow-up visit states changed`;
    },
  };
}

/** The task as the server runs it: each responsible user's top-bar count is pushed for the visits that moved. */
export function followStatesTask(ctx: AppContext): ScheduledTask {
  return followStates(ctx.db, (changes) => pushVisitChanges(ctx, changes));
}
