/** Who writes form values (a FormWriter) and what every writer states (a FormChange), as writeForm takes them. */
import type { FormIssue } from '@ecrf/core';
import type { CurrentUser } from '../../shared/current-user.js';
import type { RecordedEvent } from '../../shared/domain-events.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { actorOf, SYSTEM_ACTOR } from '../audit/audit.service.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

/** Who the trail names: a signed-in user, a patient (患者填写 with their study code), or the system. */
export interface AuditActor {
  userId: number;
  userName: string;
}

/** Who writes: a member under their study access, the patient on their own casebook, or the system. */
export type FormWriter =
  | { kind: 'staff'; user: CurrentUser; access: StudyAccess }
  | { kind: 'patient'; subjectRecordId: number; author: AuditActor; timeZone: string }
  | { kind: 'system'; timeZone: string };

export type StaffWriter = Extract<FormWriter, { kind: 'staff' }>;

/** A change to one form of one casebook, as every writer states it. */
export interface SaveInput {
  subjectRecordId: number;
  crfId: number;
  /** The record changed; none for a new one. */
  crfDataRecordId?: number | null;
  /** The record's version the writer read (the lost-update guard). */
  version?: number | null;
  values: Record<string, unknown>;
  submit?: boolean;
  reason?: string | null;
  /** Applied once per user (a retry gets the first answer): staff only. */
  requestId?: string | null;
  /** The follow-up visit's form slot this record is filled for. */
  followRecordCrfId?: number | null;
  /** 缺失原因: the record's marks (item → code), replacing the stored ones; absent, the stored ones stay. */
  missing?: Record<string, string> | null;
}

export interface FormChange extends SaveInput {
  /**
   * What the writer's page had open, when the writer chose the record itself (the patient portal's working
   * record): another record, or one where there is none now, is stale. Default: the record changed.
   */
  read?: { crfDataRecordId: number | null; version: number | null };
}

export interface FormWritten {
  crfDataRecordId: number;
  version: number;
  state: number;
  warnings: FormIssue[];
  changedItems: string[];
  event: RecordedEvent;
}

export const writerActor = (w: FormWriter): AuditActor =>
  w.kind === 'staff' ? actorOf(w.user) : w.kind === 'patient' ? w.author : SYSTEM_ACTOR;
/** The user a record names as its author: none for a patient or the system. */
export const writerUserId = (w: FormWriter): number | null => (w.kind === 'staff' ? w.user.userId : null);
export const writerTimeZone = (w: FormWriter) => (w.kind === 'staff' ? w.access.timeZone : w.timeZone);
/** Whether the writer may change stored identifier items (identifier-values.ts): a member needs 查看患者身份信息. */
export const writerMayChangeIdentifiers = (w: FormWriter) => (w.kind === 'staff' ? seesIdentifiers(w.access) : true);
