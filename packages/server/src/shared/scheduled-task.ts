// A module offers its recurring tasks in this shape; main.ts hands them to the job module's scheduler, so neither
// the modules nor the database layer import the job module.
/** A recurring task: runs once per period, on whichever app server claims the period first. */
export interface ScheduledTask {
  /** Stable name, the first half of the claim's key. */
  name: string;
  /**
   * `hour` or `day` (UTC): the second half of the claim's key. `tick`: every tick (a minute) on every app
   * server, with no claim of the period: for tasks that claim their own rows (a calendar reminder is sent by
   * the server whose update sets its sent time), where a claim a minute would only fill scheduled_runs.
   */
  every: 'hour' | 'day' | 'tick';
  /** Does the work and says what it did in words for an administrator (counts, never values). */
  run(now: Date): Promise<string>;
}
