import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { crfKey, FORM_STATE, type FormIssue } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { queryRowsNamed, reusableSelect } from '../../db/reusable-query.js';
import {
  appliedRequests,
  crfDataRecords,
  crfStageCrfs,
  crfs,
  patientReportedCrfs,
  studies,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { DomainEvent, RecordedEvent } from '../../shared/domain-events.js';
import { hasStudyPermission, seesSite, type StudyAccess } from '../../shared/study-access.js';
import { actorOf, chainedContent, SYSTEM_ACTOR } from '../audit/audit.service.js';
import { appendChainedAfter, chainHeadCte } from '../audit/audit-chain.js';
import { SYSTEM_QUERIES } from '../doubt/system-queries.subscriber.js';
import { linkFollowForm } from '../follow/follow-forms.js';
import { assertWritable } from '../locks/lock-gate.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { definitionOf } from '../study/crf-definitions.js';
import { draftVersionColumn, versionForNewRecord } from '../amendment/draft-version.service.js';
import {
  judgeSave,
  saveAuditEntries,
  signatureVoidReason,
  stale,
  voidedSignatureEntries,
  voidSignatures,
  type SaveJudgement,
} from './form-rules.js';
import { conflictFor, formIdentifiers } from './identifier-values.js';
import { labRangesForSave } from './form-lab-ranges.js';
import { otherFormValues } from './linked-values.service.js';
import { saveRequestHash } from './save-request.js';

/**
 * The one write path for form values. Every writer — the form page's save and submit, patient-reported forms, the
 * REDCap-compatible API, image URLs, and through form-write-batch.ts the data import — translates its input into a
 * FormChange and a FormWriter and calls here. In this order, inside the caller's transaction: who may write (the
 * writer's form right, then its right to this patient: study, site, own casebook), the locks (lock-gate.ts), the
 * record's own rules (stale version, a patient's submitted form), the engine's judgement (judgeSave: values, submit
 * and reason rules, SDV marks cleared), the record written, the signatures over the casebook voided, the audit
 * rows, the domain event and the follow-up visit's link.
 */

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

type Stored = typeof crfDataRecords.$inferSelect;
type Casebook = { id: number; studyId: number; subjectId: number; siteId: number | null };

export const writerActor = (w: FormWriter): AuditActor =>
  w.kind === 'staff' ? actorOf(w.user) : w.kind === 'patient' ? w.author : SYSTEM_ACTOR;
/** The user a record names as its author: none for a patient or the system. */
export const writerUserId = (w: FormWriter): number | null => (w.kind === 'staff' ? w.user.userId : null);
export const writerTimeZone = (w: FormWriter) => (w.kind === 'staff' ? w.access.timeZone : w.timeZone);
/** Whether the writer may change stored identifier items (identifier-values.ts): a member needs 查看患者身份信息. */
export const writerMayChangeIdentifiers = (w: FormWriter) => (w.kind === 'staff' ? seesIdentifiers(w.access) : true);

export const otherSiteRefusal = () => AppError.forbidden('subject.other_site', '患者不在您的中心范围内');

/** Who may write this form at all, before anything of the patient is read: a member needs 保存 (or 提交) of it. */
export function formRefusal(writer: FormWriter, crfId: number, submit: boolean): AppError | null {
  if (writer.kind !== 'staff') return null;
  return hasStudyPermission(writer.access, crfKey(crfId, submit ? 'submit' : 'save')) ? null : AppError.forbidden();
}

/** Who may write this patient's forms: a member of the casebook's study who sees its site; a patient their own. */
export function patientRefusal(writer: FormWriter, casebook: Casebook): AppError | null {
  if (writer.kind === 'staff') {
    if (casebook.studyId !== writer.access.studyId) return AppError.notFound('subject.not_found', '患者不存在');
    if (!seesSite(writer.access, casebook.siteId)) return otherSiteRefusal();
  }
  if (writer.kind === 'patient' && casebook.id !== writer.subjectRecordId) return patientFormRefusal();
  return null;
}

const patientFormRefusal = () => AppError.forbidden('patient.form_forbidden', '无权填写该表单');

/** The writer's right to the form: a member's permission, or for a patient their own casebook and a form assigned. */
async function mayWriteForm(tx: Db, writer: FormWriter, change: FormChange) {
  const refused = formRefusal(writer, change.crfId, Boolean(change.submit));
  if (refused) throw refused;
  if (writer.kind !== 'patient') return;
  if (change.subjectRecordId !== writer.subjectRecordId) throw patientFormRefusal();
  const [assigned] = await tx
    .select({ crfId: patientReportedCrfs.crfId })
    .from(patientReportedCrfs)
    .innerJoin(subjectRecords, eq(subjectRecords.studyId, patientReportedCrfs.studyId))
    .where(and(eq(subjectRecords.id, change.subjectRecordId), eq(patientReportedCrfs.crfId, change.crfId)));
  // Any other form, of this study or another, is not the patient's: the same answer either way.
  if (!assigned) throw patientFormRefusal();
}

export async function liveRecord(db: Db, subjectRecordId: number) {
  const [record] = await db
    .select()
    .from(subjectRecords)
    .where(and(eq(subjectRecords.id, subjectRecordId), isNull(subjectRecords.deletedAt)));
  if (!record) throw AppError.notFound('subject.not_found', '患者不存在');
  return record;
}

export async function crfOfStudy(db: Db, studyId: number, crfId: number) {
  const [crf] = await db
    .select()
    .from(crfs)
    .where(and(eq(crfs.id, crfId), eq(crfs.studyId, studyId)));
  if (!crf) throw AppError.notFound('crf.not_found', 'CRF不存在');
  return crf;
}

const casebookColumns = {
  id: subjectRecords.id,
  studyId: subjectRecords.studyId,
  subjectId: subjectRecords.subjectId,
  siteId: subjects.deptId,
};

/** The live casebook, its patient's sex and site, and the form in the casebook's study: a form's first save. */
const readForFirstSave = reusableSelect('crf_save_read_first', (db) =>
  db
    .select({
      record: casebookColumns,
      gender: subjects.gender,
      birth: subjects.birth,
      test: subjects.test,
      crf: { title: crfs.title, currentVersion: crfs.currentVersion, draftVersion: draftVersionColumn },
      missingCodes: studies.missingCodes,
    })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(studies, eq(studies.studyId, subjectRecords.studyId))
    .innerJoin(crfs, and(eq(crfs.id, sql.placeholder('crfId')), eq(crfs.studyId, subjectRecords.studyId)))
    .where(and(eq(subjectRecords.id, sql.placeholder('subjectRecordId')), isNull(subjectRecords.deletedAt))),
);

/** The same and the form's record, locked until the save commits. */
const readForLaterSave = reusableSelect('crf_save_read', (db) =>
  db
    .select({
      record: casebookColumns,
      gender: subjects.gender,
      birth: subjects.birth,
      crf: { title: crfs.title, currentVersion: crfs.currentVersion },
      missingCodes: studies.missingCodes,
      existing: crfDataRecords,
    })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(studies, eq(studies.studyId, subjectRecords.studyId))
    .innerJoin(crfs, and(eq(crfs.id, sql.placeholder('crfId')), eq(crfs.studyId, subjectRecords.studyId)))
    .innerJoin(
      crfDataRecords,
      and(
        eq(crfDataRecords.id, sql.placeholder('crfDataRecordId')),
        eq(crfDataRecords.subjectRecordId, subjectRecords.id),
        eq(crfDataRecords.crfId, sql.placeholder('crfId')),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .where(and(eq(subjectRecords.id, sql.placeholder('subjectRecordId')), isNull(subjectRecords.deletedAt)))
    .for('update', { of: crfDataRecords }),
);

/**
 * What a save judges, read in one statement. When that finds nothing, the reads one by one say what is missing,
 * in the order the refusals have always come.
 */
async function readForSave(tx: Db, input: FormChange) {
  const found = input.crfDataRecordId
    ? await readForLaterSave(tx, {
        subjectRecordId: input.subjectRecordId,
        crfId: input.crfId,
        crfDataRecordId: input.crfDataRecordId,
      })
    : await readForFirstSave(tx, { subjectRecordId: input.subjectRecordId, crfId: input.crfId });
  const [row] = found as Array<{
    record: Casebook;
    gender: number | null;
    birth: string | null;
    test?: boolean;
    crf: { title: string; currentVersion: number; draftVersion?: number | null };
    missingCodes: Array<{ code: string; label: string }>;
    existing?: Stored;
  }>;
  if (!row) {
    const record = await liveRecord(tx, input.subjectRecordId);
    await crfOfStudy(tx, record.studyId, input.crfId);
    throw AppError.notFound('crf_data.not_found', '表单记录不存在');
  }
  return row;
}

/** The record's own rules for this writer, after the locks: the version read, and a patient's submitted form. */
async function recordRefusal(tx: Db, writer: FormWriter, change: FormChange, existing: Stored | undefined) {
  const read = change.read ?? { crfDataRecordId: change.crfDataRecordId ?? null, version: change.version ?? null };
  if (!existing) {
    return read.crfDataRecordId ? AppError.conflict('crf.stale_version', '数据已被他人修改，请刷新后重试') : null;
  }
  // A submitted form is closed to the patient: a correction is staff's, with a reason.
  if (writer.kind === 'patient' && existing.state === FORM_STATE.submitted) {
    return AppError.conflict('patient.form_submitted', '表单已提交，不能再修改');
  }
  if (read.crfDataRecordId !== existing.id || read.version !== existing.version) {
    return writer.kind === 'staff'
      ? await conflictFor(tx, writer.access, stale(existing, change.values), existing)
      : stale(existing, change.values);
  }
  return null;
}

/** Another save with the same request id committed first: its answer is the answer (crf-data.service saveCrf). */
export class RequestAlreadyApplied extends Error {}

/** The migration writer of an amendment (issue 36): records moved to a newer version of their form. */
export { migrateBatch, type MigrationBatch, type MigrationCounts } from './form-write-migration.js';

/**
 * Writes one form's values inside the caller's transaction, through every rule in the order above. Throws the
 * refusals (403, 404, 409, 423, crf.invalid, crf.reason_required) before anything is written.
 */
export async function writeForm(
  tx: Db,
  ctx: AppContext,
  writer: FormWriter,
  change: FormChange,
  /** A WITH entry to write with the save (the request's operation-log row): it commits with the save or not at all. */
  alsoWrite?: SQL,
): Promise<FormWritten> {
  const now = ctx.clock();
  await mayWriteForm(tx, writer, change);
  const { record, gender, birth, test, crf, missingCodes, existing } = await readForSave(tx, change);
  const refused = patientRefusal(writer, record);
  if (refused) throw refused;
  await assertWritable(tx, { studyId: record.studyId, subjectRecordId: record.id, crfDataRecordId: existing?.id });
  const stale = await recordRefusal(tx, writer, change, existing);
  if (stale) throw stale;

  // A test patient's new record fills the CRF's open draft (issue 36); a record keeps its version afterwards.
  const crfVersion = existing?.crfVersion ?? versionForNewRecord(crf, test);
  const definition = await definitionOf(tx, change.crfId, crfVersion);
  const labRanges = await labRangesForSave(tx, {
    studyId: record.studyId,
    siteId: record.siteId,
    gender,
    birth,
    definition,
    values: { ...existing?.values, ...change.values },
    recordCreatedAt: existing?.createdAt ?? null,
    now,
    timeZone: writerTimeZone(writer),
  });
  const judged = judgeSave(definition, change.values, existing, {
    submit: Boolean(change.submit),
    reason: change.reason,
    now,
    timeZone: writerTimeZone(writer),
    gender,
    forms: await otherFormValues(tx, record.studyId, record.id, definition),
    missing: change.missing ?? undefined,
    missingCodes,
    referenceRanges: labRanges.overrides,
    identifiers: {
      items: await formIdentifiers(tx, change.crfId, [crfVersion], crf.currentVersion),
      mayChange: writerMayChangeIdentifiers(writer),
    },
  });
  const written = await writeRecord(
    { ctx, tx, writer, change, now, record, crf, crfVersion, judged, alsoWrite, labRanges: labRanges.used },
    existing,
  );
  return {
    crfDataRecordId: written.id,
    version: written.version,
    state: judged.state,
    warnings: judged.warnings,
    changedItems: judged.changed,
    event: written.event,
  };
}

/**
 * How long a save's answer waits for its system queries (raised after commit by their subscriber), so that the
 * page, which refetches the form and its menu on the answer, shows them. Past this the answer goes without them.
 */
const SYSTEM_QUERY_WAIT_MS = 3_000;

/**
 * writeForm in a transaction of its own (the change is stated in it when the writer reads to state it); a submitted
 * form's system queries are raised before the answer.
 */
export async function saveForm(
  ctx: AppContext,
  writer: FormWriter,
  change: FormChange | ((tx: Db) => Promise<FormChange>),
  alsoWrite?: SQL,
): Promise<FormWritten> {
  const written = await ctx.db.transaction(async (tx) =>
    writeForm(tx, ctx, writer, typeof change === 'function' ? await change(tx) : change, alsoWrite),
  );
  // Only a submitted form has system queries to raise or close: a draft's save (most saves) answers at once.
  if (written.state === FORM_STATE.submitted) {
    await ctx.events.delivered(written.event, SYSTEM_QUERIES, SYSTEM_QUERY_WAIT_MS);
  }
  return written;
}

/** A save's domain event: `record.submitted` when this save submitted the form, `record.saved` otherwise. */
export function formSavedEvent(e: {
  writer: FormWriter;
  studyId: number;
  subjectId: number;
  crfId: number;
  recordId: number;
  submitsNow: boolean;
}): DomainEvent {
  return {
    type: e.submitsNow ? 'record.submitted' : 'record.saved',
    studyId: e.studyId,
    subjectId: e.subjectId,
    crfId: e.crfId,
    recordId: e.recordId,
    by: writerUserId(e.writer) ?? 0,
  };
}

interface Write {
  ctx: AppContext;
  tx: Db;
  writer: FormWriter;
  change: FormChange;
  now: Date;
  record: Casebook;
  crf: { title: string };
  crfVersion: number;
  judged: SaveJudgement;
  alsoWrite: SQL | undefined;
  /** 参考范围: the range each item was judged by, stored for the export. */
  labRanges: Record<string, unknown>;
}

/**
 * The record written, then in one statement: the record's update (a form saved before), the voided signatures (when
 * values changed), the request's claim, the domain event and its deliveries, the operation-log row and the audit
 * chain's head lock, taken last as everywhere (audit-chain.ts); then the audit rows after that head. Inside the
 * transaction a form saved before is five statements (the read, the lock gate's two, this one, the audit rows); a
 * first save adds its record's insert.
 */
async function writeRecord(w: Write, existing: Stored | undefined) {
  const { tx, writer, change, now, record, judged } = w;
  const userId = writerUserId(writer);
  const id = existing ? existing.id : await insertRecord(w);
  const version = existing ? existing.version + 1 : 1;
  const submitsNow = Boolean(change.submit) && !judged.wasSubmitted;
  if (change.followRecordCrfId) {
    await linkFollowForm(tx, {
      studyId: record.studyId,
      subjectRecordId: record.id,
      crfId: change.crfId,
      followRecordCrfId: change.followRecordCrfId,
      crfDataRecordId: id,
    });
  }
  const base = {
    studyId: record.studyId,
    subjectRecordId: record.id,
    crfDataRecordId: id,
    crfId: change.crfId,
    crfVersion: w.crfVersion,
  };
  const j = { ...judged, before: existing?.values ?? {} };
  const entries = saveAuditEntries(base, existing, j, submitsNow);
  const voids =
    judged.changed.length > 0 ? [{ subjectRecordId: record.id, why: signatureVoidReason(w.crf.title) }] : [];
  const event = w.ctx.events.recordIn(
    formSavedEvent({
      writer,
      studyId: record.studyId,
      subjectId: record.subjectId,
      crfId: change.crfId,
      recordId: id,
      submitsNow,
    }),
  );
  const parts: SQL[] = [];
  if (existing) {
    parts.push(sql`updated as (update ${crfDataRecords} set values = ${JSON.stringify(judged.after)}::jsonb, state = ${judged.state},
      version = ${version}, sdv = ${JSON.stringify(judged.sdv)}::jsonb, missing = ${JSON.stringify(judged.missing)}::jsonb,
      lab_ranges = ${JSON.stringify(w.labRanges)}::jsonb, updated_by = ${userId},
      updated_at = ${now.toISOString()}::timestamptz
      ${submitsNow ? sql`, submitted_at = ${now.toISOString()}::timestamptz` : sql``}
      where id = ${id} returning id)`);
  }
  if (voids.length > 0) parts.push(sql`voided as (${voidSignatures(record.studyId, voids, now)})`);
  if (change.requestId && userId !== null) {
    parts.push(sql`claimed as (insert into ${appliedRequests} (user_id, request_id, study_id, subject_record_id, crf_id,
      crf_data_record_id, version, state, request_hash, created_at)
      values (${userId}, ${change.requestId}, ${record.studyId}, ${record.id}, ${change.crfId}, ${id}, ${version},
        ${judged.state}, ${saveRequestHash(change)}, ${now.toISOString()}::timestamptz)
      on conflict do nothing returning request_id)`);
  }
  parts.push(event.ctes);
  if (w.alsoWrite) parts.push(w.alsoWrite);
  // Signatures voided add a row of their own: the head is needed whenever anything is audited.
  const audits = entries.length > 0 || voids.length > 0;
  if (audits) parts.push(chainHeadCte(record.studyId));
  const [out] = await queryRowsNamed<{
    event_id: number | string;
    voided: Array<{ id: number; subject_record_id: number }> | null;
    claimed: number | string;
    head: string | null;
  }>(
    tx,
    existing ? 'crf_save_write' : 'crf_create_write',
    sql`with ${sql.join(parts, sql`, `)} select ${event.eventId} as event_id,
      ${voids.length > 0 ? sql`(select json_agg(json_build_object('id', id, 'subject_record_id', subject_record_id)) from voided)` : sql`null::json`} as voided,
      ${change.requestId && userId !== null ? sql`(select count(*) from claimed)` : sql`1`} as claimed,
      ${audits ? sql`(select hash from chain_head)` : sql`null::varchar`} as head`,
  );
  if (Number(out!.claimed) === 0) throw new RequestAlreadyApplied();
  entries.push(...voidedSignatureEntries(record.studyId, voids, out!.voided ?? []));
  if (entries.length > 0) {
    await appendChainedAfter(tx, record.studyId, out!.head, chainedContent(writerActor(writer), now, entries));
  }
  return { id, version, event: event.recorded(tx, out!.event_id) };
}

/**
 * The live record of a single form of a patient: the one its unique index (crf_data_records_single_live) lets
 * stand, that a concurrent first record lost to.
 */
export async function singleLiveRecord(tx: Db, subjectRecordId: number, crfId: number): Promise<Stored | undefined> {
  const [record] = await tx
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        eq(crfDataRecords.crfId, crfId),
        eq(crfDataRecords.singleForm, true),
        isNull(crfDataRecords.deletedAt),
      ),
    );
  return record;
}

/** A form's first record (a single form's second live record is refused by its unique index: theirs stands). */
async function insertRecord(w: Write): Promise<number> {
  const { tx, writer, change, now, record, judged } = w;
  const userId = writerUserId(writer);
  // A form in no stage, or only in stages where it repeats once, is single.
  const single = sql`not exists (select 1 from ${crfStageCrfs} where ${crfStageCrfs.crfId} = ${change.crfId}
    and ${crfStageCrfs.repeat} <> 1)`;
  const [row] = await tx
    .insert(crfDataRecords)
    .values({
      studyId: record.studyId,
      subjectRecordId: record.id,
      crfId: change.crfId,
      crfVersion: w.crfVersion,
      state: judged.state,
      version: 1,
      values: judged.after,
      missing: judged.missing,
      labRanges: w.labRanges,
      singleForm: single,
      createdBy: userId,
      updatedBy: userId,
      createdAt: now,
      updatedAt: now,
      submittedAt: change.submit ? now : null,
    })
    .onConflictDoNothing()
    .returning({ id: crfDataRecords.id });
  if (row) return row.id;
  const winner = await singleLiveRecord(tx, record.id, change.crfId);
  if (!winner) throw AppError.conflict('crf.stale_version', '数据已被他人修改，请刷新后重试');
  throw writer.kind === 'staff'
    ? await conflictFor(tx, writer.access, stale(winner, change.values), winner)
    : stale(winner, change.values);
}
