import type { MessageKind, MessageRules } from '../messaging-contract.js';
import { addDays, daysBetween, isDateString, windowOf } from '../follow/schedule.js';

/**
 * Which reminders and questionnaire invitations are due today (issue 38). Pure: the caller gives the study's rules,
 * today's date in the study's zone, the open follow-up visits and the dedupe keys already recorded; it records what
 * it queues under each message's `dedupeKey`, so a scheduler that runs twice a day, or misses a day, sends each
 * message once.
 */

export interface ScheduleVisit {
  followRecordId: number;
  subjectId: number;
  visitName: string;
  /** YYYY-MM-DD in the study's zone. */
  plannedDate: string;
  windowBefore: number;
  windowAfter: number;
  /** done, lost or deleted visits get no reminder */
  closed: boolean;
  /** patient-reported forms of this visit: crfId, name, answered (a record saved) */
  proForms: Array<{ crfId: number; formName: string; answered: boolean }>;
}

export interface DueMessage {
  kind: MessageKind;
  subjectId: number;
  followRecordId: number;
  crfId: number | null;
  dedupeKey: string;
  vars: { visit: string; window: string; form?: string };
}

/** The dedupe key of a message: `<kind>:<followRecordId>`, with `:<crfId>` for questionnaire messages. */
export function messageDedupeKey(kind: MessageKind, followRecordId: number, crfId?: number | null): string {
  return crfId === null || crfId === undefined ? `${kind}:${followRecordId}` : `${kind}:${followRecordId}:${crfId}`;
}

/** A visit's window as a patient reads it: `2026-03-01 至 2026-03-15`. */
export function visitWindowText(v: Pick<ScheduleVisit, 'plannedDate' | 'windowBefore' | 'windowAfter'>): string {
  const { start, end } = windowOf(v);
  return `${start} 至 ${end}`;
}

/** The study-zone date of a recorded key, or null when it is not a date (then it never counts as old enough). */
function recordedDate(value: string | undefined): string | null {
  if (value === undefined) return null;
  const day = value.slice(0, 10);
  return isDateString(day) ? day : null;
}

export function dueMessages(input: {
  rules: MessageRules;
  today: string;
  visits: readonly ScheduleVisit[];
  /** dedupe key -> the study-zone date it was recorded */
  recorded: ReadonlyMap<string, string>;
}): DueMessage[] {
  const { rules, today, visits, recorded } = input;
  if (!isDateString(today)) throw new RangeError(`not a date: ${today}`);
  if (!rules.enabled) return [];
  const out: DueMessage[] = [];
  const seen = new Set<string>();
  const push = (m: DueMessage) => {
    if (recorded.has(m.dedupeKey) || seen.has(m.dedupeKey)) return;
    seen.add(m.dedupeKey);
    out.push(m);
  };

  for (const v of visits) {
    // A visit with a broken date cannot be reminded of; one bad row must not stop the rest.
    if (v.closed || !isDateString(v.plannedDate)) continue;
    const { start: open, end: close } = windowOf(v);
    const base = { subjectId: v.subjectId, followRecordId: v.followRecordId };
    const vars = { visit: v.visitName, window: `${open} 至 ${close}` };
    const visitMessage = (kind: MessageKind): DueMessage => ({
      kind,
      ...base,
      crfId: null,
      dedupeKey: messageDedupeKey(kind, v.followRecordId),
      vars,
    });

    // Before the window: from `daysBefore` days before it opens (or the first run after), never once it is open.
    if (rules.daysBefore !== null && today >= addDays(open, -rules.daysBefore) && today < open) {
      push(visitMessage('visit_before'));
    }
    if (rules.remindFirstDay && today >= open && today <= close) push(visitMessage('visit_first_day'));
    if (rules.remindOverdue && today > close) push(visitMessage('visit_overdue'));

    // Questionnaires: invited once the window opens (or later); reminded once if still unanswered after a while.
    if (!rules.invitePro || today < open) continue;
    for (const form of v.proForms) {
      if (form.answered) continue;
      const formMessage = (kind: MessageKind): DueMessage => ({
        kind,
        ...base,
        crfId: form.crfId,
        dedupeKey: messageDedupeKey(kind, v.followRecordId, form.crfId),
        vars: { ...vars, form: form.formName },
      });
      const inviteKey = messageDedupeKey('pro_invite', v.followRecordId, form.crfId);
      const invitedOn = recordedDate(recorded.get(inviteKey));
      if (!recorded.has(inviteKey)) {
        push(formMessage('pro_invite'));
      } else if (
        rules.remindAgainDays !== null &&
        invitedOn !== null &&
        daysBetween(invitedOn, today) >= rules.remindAgainDays
      ) {
        push(formMessage('pro_remind'));
      }
    }
  }
  return out;
}
