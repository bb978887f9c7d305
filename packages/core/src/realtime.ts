/**
 * The realtime contract between the server's Socket.IO hubs and the browser (platform §7, §9).
 * Pushes carry ids and counts, never clinical values or identifiers: a client that needs data
 * reads it through the REST API under its own permissions.
 */

/** platform §7: the three hubs, each a Socket.IO namespace on the API's own port. */
export const REALTIME_HUBS = ['eventhub', 'toolsignalhub', 'personsignalhub'] as const;
export type RealtimeHub = (typeof REALTIME_HUBS)[number];

/** Socket.IO's HTTP path (the default), served by the API's own HTTP server. */
export const REALTIME_PATH = '/socket.io';

/** platform §7, §9: after a connection error the client tries again after 5 seconds. */
export const REALTIME_RETRY_MS = 5_000;

/** platform §9: spoken notices wait in a queue of at most 10. */
export const SPEECH_QUEUE_LIMIT = 10;

/**
 * What a refused handshake carries in `connect_error`'s `err.data`: `status` 401 for a missing,
 * malformed, expired or revoked token (the client ends the session and goes to /login), 403 for a
 * user who must first replace the initial password.
 */
export interface RealtimeRefusal {
  status: 401 | 403;
  code: number;
  msg: string;
}

/** The top bar's counts for one study, for one user (pushed to that user whenever they may have changed). */
export interface CountsPush {
  studyId: number;
  /**
   * Each count is present only when the push concerns it; the client leaves the others as they are.
   * Queries waiting for the user: open ones to answer, replied ones to close (GET /api/business/doubts/count).
   */
  doubts?: number;
  /** The user's own calendar events today, in the study's time zone (GET /api/business/events/count). */
  events?: number;
  /** Follow-up visits 待随访 or 已超窗 the user is responsible for (pushed by the follow-up module when they change). */
  visits?: number;
  /** SAE reports waiting to be submitted that the user (安全性报告) sees (GET /api/business/safety/count). */
  saes?: number;
}

/**
 * A serious adverse event's report was created (issue 37): its 24-hour clock runs. Sent to the members holding
 * 安全性报告 who see the patient's site. Ids and the deadline only; the client reads the report through the API.
 */
export interface SaePush {
  /** The report's id (what a notice delivered twice is recognised by). */
  saeReportId: number;
  studyId: number;
  subjectRecordId: number;
  /** ISO 8601. */
  deadlineAt: string;
}

/** A short notice for one user: shown, and spoken when the user turned speech on. */
export type NoticePush = QueryNoticePush | CalendarReminderPush;

/** A query was raised or answered. */
export interface QueryNoticePush {
  /** The domain event's id: a notice delivered twice (delivery is at least once) is shown once. */
  eventId: number;
  kind: 'query.opened' | 'query.answered';
  studyId: number;
  subjectId: number;
  crfId: number;
  queryId: number;
  /** The form's title (a definition's name, not a clinical value). */
  crfTitle: string;
}

/**
 * A calendar event's reminder is due (once per event and reminder time). Carries no title: the title is the
 * owner's own text and may name a patient, so the client reads it through GET /api/business/events/{id}.
 */
export interface CalendarReminderPush {
  kind: 'calendar.reminder';
  /** The calendar event's id (with the kind, what a notice delivered twice is recognised by). */
  eventId: number;
  studyId: number;
  /** When the event starts (ISO 8601). */
  startTime: string;
  allDay: boolean;
}

/**
 * A patient was emergency-unblinded (issue 15): sent at once to the study's managers (staff whose role may unblind
 * all). Carries no arm and no identifier: the client reads the patient through the API under its own permissions.
 */
export interface UnblindingPush {
  /** The unblinding record's id (what a notice delivered twice is recognised by). */
  eventId: number;
  studyId: number;
  subjectId: number;
}

/** Someone saved a form record: the CRF page holding it offers to reload. Sent to the form's readers. */
export interface RecordSavedPush {
  studyId: number;
  subjectId: number;
  crfId: number;
  recordId: number;
  /** The user who saved (the client ignores its own saves). */
  by: number;
}

/**
 * A query on a form of a patient was raised (by a person or by the system after a submit), answered or closed: the
 * form's state and its item markers changed, so a CRF page showing that patient reads its menu and the form again.
 * Ids only, to the readers of the form.
 */
export interface RecordQueriesPush {
  studyId: number;
  subjectId: number;
  crfId: number;
}

/** A background job's progress, for the job's owner. */
export interface JobProgressPush {
  jobId: string;
  /** What kind of job (the task drawer names it). */
  kind: string;
  /** queued, running, done, failed or cancelled. */
  state: string;
  /** 0–100. */
  progress: number;
  /** What the job is doing, written for the owner; never a clinical value. */
  message: string | null;
}

/**
 * An administrator published or changed a notice (通知公告) the user is a reader of: the bell reads the list again.
 * Carries the id only; the title and text are read through GET /api/system/notice/list.
 */
export interface SysNoticePush {
  noticeId: number;
  /** 'published' for a new notice (shown to the user), 'changed' for an edit or removal (the list refreshes). */
  change: 'published' | 'changed';
}

/** A consultation (在线咨询) of a study the user answers for was asked, answered or closed. Ids only. */
export interface ConsultPush {
  studyId: number;
  consultId: number;
  kind: 'consult.asked' | 'consult.answered' | 'consult.closed';
}

/** Another client changed these data scopes (POST /api/v1/base/other/addsysdatachangeinfo): read them again. */
export interface DataChangedPush {
  /** The study the scopes belong to; null for platform-wide scopes. */
  studyId: number | null;
  scopes: string[];
  /** The user who changed them (the client ignores its own changes). */
  by: number;
}

/** Events sent to one user's room, by name. */
export interface UserPushes {
  counts: CountsPush;
  notice: NoticePush;
  'job.progress': JobProgressPush;
  'randomization.unblinded': UnblindingPush;
  'sys.notice': SysNoticePush;
  consult: ConsultPush;
  'data.changed': DataChangedPush;
  sae: SaePush;
}

/** Events sent to one study's room (or the readers of one form in it), by name. */
export interface StudyPushes {
  'record.saved': RecordSavedPush;
  'record.queries': RecordQueriesPush;
}

/** Which hub carries which event: personal signals, study events, tool and job signals. */
export const HUB_OF_EVENT: { readonly [E in keyof UserPushes | keyof StudyPushes]: RealtimeHub } = {
  counts: 'personsignalhub',
  notice: 'personsignalhub',
  'job.progress': 'toolsignalhub',
  'randomization.unblinded': 'personsignalhub',
  'sys.notice': 'personsignalhub',
  consult: 'personsignalhub',
  'data.changed': 'eventhub',
  sae: 'personsignalhub',
  'record.saved': 'eventhub',
  'record.queries': 'eventhub',
};

/** What the client sends to watch one study (answered through the acknowledgement). */
export const STUDY_JOIN = 'study:join';
export const STUDY_LEAVE = 'study:leave';
export type StudyJoinAnswer = { ok: true } | { ok: false; status: 400 | 401 | 403; msg: string };

/**
 * A bounded first-in-first-out queue (the speech queue, RT-04). When full, the oldest waiting
 * entry is dropped for the newest: the newest notice is the one the listener needs now, and a
 * backlog of stale announcements would only delay it.
 */
export class BoundedQueue<T> {
  private readonly items: T[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  }

  /** Adds an entry; answers the entry dropped to make room, if any. */
  push(item: T): T | undefined {
    this.items.push(item);
    return this.items.length > this.limit ? this.items.shift() : undefined;
  }

  shift(): T | undefined {
    return this.items.shift();
  }

  clear(): void {
    this.items.length = 0;
  }

  get size(): number {
    return this.items.length;
  }

  toArray(): T[] {
    return [...this.items];
  }
}
