import type { AppContext } from '../../app-context.js';
import { reactToRecordSave } from './coding-auto.service.js';

/** The outbox subscriber that keeps coded items in line with the saved verbatims (events in shared/domain-events.ts). */
export const CODING_WATCH = 'coding.verbatims';

export function subscribeCoding(ctx: AppContext): void {
  ctx.events.subscribe(CODING_WATCH, ['record.saved', 'record.submitted'], async ({ event }) => {
    if (event.type !== 'record.saved' && event.type !== 'record.submitted') return;
    await reactToRecordSave(ctx, event);
  });
}
