/**
 * A judged save written: the record inserted or updated with its follow-up link, the voided signatures, the request's
 * claim, the domain event, the operation-log row and the audit rows, in as few statements as the transaction allows.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { queryRowsNamed } from '../../db/reusable-query.js';
import { appliedRequests, crfDataRecords, crfStageCrfs } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { DomainEvent } from '../../shared/domain-events.js';
import { chainedContent } from '../audit/audit.service.js';
import { appendChainedAfter, chainHeadCte } from '../audit/audit-chain.js';
import { linkFollowForm } from '../follow/follow-forms.js';
import {
  saveAuditEntries,
  signatureVoidReason,
  stale,
  voidedSignatureEntries,
  voidSignatures,
  type SaveJudgement,
} from './form-rules.js';
import { conflictFor } from './identifier-values.js';
import { saveRequestHash } from './save-request.js';
import { singleLiveRecord, type Casebook, type Stored } from './form-write-reads.js';
import { writerActor, writerUserId, type FormChange, type FormWriter } from './form-writer.js';

/** Another save with the same request id committed first: its answer is the answer (crf-data.service saveCrf). */
export class RequestAlreadyApplied extends Error {}

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

export interface Write {
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
export async function writeRecord(w: Write, existing: Stored | undefined) {
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
