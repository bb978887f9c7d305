import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { formReferencesOf, identifierItemsOf } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows, type Db } from '../../db/client.js';
import { crfDataRecords, crfStageCrfs, crfs, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { DomainEvent, RecordedEvent } from '../../shared/domain-events.js';
import { chainedContent, type AuditEntry } from '../audit/audit.service.js';
import { appendChained } from '../audit/audit-chain.js';
import { lockRefusals } from '../locks/lock-gate.js';
import { definitionsOf, versionKey } from '../study/crf-definitions.js';
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
import {
  formRefusal,
  formSavedEvent,
  patientRefusal,
  singleLiveRecord,
  writerActor,
  writerMayChangeIdentifiers,
  type StaffWriter,
} from './form-write.js';
import { otherFormValuesOf } from './linked-values.service.js';
import { getMissingCodes } from '../study/missing-codes.service.js';
import { labRangesOfRecord, rangesOfSites, siteRowsOf } from './form-lab-ranges.js';

/** 参考范围: the writers' one choice of a record's site ranges, for the amendment impact report to judge alike. */
export { labRangesOfRecord, rangesOfSites, siteRowsOf } from './form-lab-ranges.js';

/** What the writer needs of a planned record (data-import.service's Target). */
export interface WriteTarget {
  sheet: string;
  row: number;
  subjectRecordId: number;
  form: { crfId: number };
  existing: { id: number; version: number } | null;
  values: Record<string, unknown>;
  /** 缺失原因: the record's marks after the write (replacing the stored ones); absent, the stored ones stay. */
  missing?: Record<string, string>;
}

export interface WriteCounts {
  created: number;
  updated: number;
  values: number;
  /** The last domain event recorded (its reactions come after those of the others). */
  lastEvent?: RecordedEvent;
}

export interface Refusal {
  target: WriteTarget;
  cause: AppError;
}

/**
 * Records of some patients the save refused while the import wrote (the engine's verdict at write time, a
 * record changed or deleted since the file was planned, a patient deleted). Thrown out of the transaction so
 * that it rolls back: the caller imports the batch again without these patients (per patient) or gives up
 * (whole file).
 */
export class BatchRefused extends Error {
  constructor(readonly refusals: Refusal[]) {
    super(refusals[0]?.cause.message ?? 'refused');
  }
}

type Stored = typeof crfDataRecords.$inferSelect;

/** Gives the event loop to other requests after `sliceMs` of work in a long loop (and answers at once before). */
export function timeSlices(sliceMs = 8) {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

/** Rows per update statement (8 parameters a row; PostgreSQL takes at most 65,535 a statement). */
const UPDATE_CHUNK = 1_000;

/**
 * The one write path (form-write.ts) for many records, set-based, as the data import writes them: the same rules
 * in the same order (who may write, locks, the record's version, judgeSave) and the same rows (the record, its
 * audit rows, the signatures voided with their trail row, the event; one-write-path.test.ts compares them), in a
 * few statements instead of ~20 per record. Its SQL is its own; its rules and rows are form-write's (form-rules.ts).
 * `patients` holds each patient's records in the file's order; the k-th records of all patients make one wave,
 * judged against the data as the earlier waves left it (a form referring to another form the same file changes sees
 * the new values, as it would record by record), then written: one insert of the new records, one update of the
 * changed ones, one statement voiding signatures, the events in one insert, and the audit rows queued for the
 * transaction's end (one chain lock, a few inserts). Any refusal is collected for the whole wave and thrown as
 * BatchRefused.
 */
export async function writeFormBatch(
  tx: Db,
  ctx: AppContext,
  writer: StaffWriter,
  patients: ReadonlyArray<readonly WriteTarget[]>,
  options: { submit: boolean; reason: string; now: Date },
): Promise<WriteCounts> {
  const counts: WriteCounts = { created: 0, updated: 0, values: 0 };
  const { user, access } = writer;
  const studyId = access.studyId;
  const now = options.now;
  const all = patients.flat();
  if (all.length === 0) return counts;
  const refusals: Refusal[] = [];
  const refuse = (target: WriteTarget, cause: AppError) => refusals.push({ target, cause });
  const slice = timeSlices();
  // The study's codes a new mark must be one of (the form page's save reads them likewise).
  const missingCodes = await getMissingCodes({ ...ctx, db: tx }, studyId);

  const recordIds = [...new Set(all.map((t) => t.subjectRecordId))];
  const crfIds = [...new Set(all.map((t) => t.form.crfId))];
  const live = new Map(
    (
      await tx
        .select({
          id: subjectRecords.id,
          studyId: subjectRecords.studyId,
          subjectId: subjectRecords.subjectId,
          gender: subjects.gender,
          birth: subjects.birth,
          siteId: subjects.deptId,
          test: subjects.test,
        })
        .from(subjectRecords)
        .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
        .where(
          and(
            eq(subjectRecords.studyId, studyId),
            inArray(subjectRecords.id, recordIds),
            isNull(subjectRecords.deletedAt),
          ),
        )
    ).map((r) => [r.id, r] as const),
  );
  const forms = new Map(
    (
      await tx
        .select({
          id: crfs.id,
          title: crfs.title,
          currentVersion: crfs.currentVersion,
          draftVersion: draftVersionColumn,
        })
        .from(crfs)
        .where(and(eq(crfs.studyId, studyId), inArray(crfs.id, crfIds)))
    ).map((c) => [c.id, c] as const),
  );
  // 参考范围: the sites' range rows of all the batch's patients, one query (never one per record).
  const siteRanges = await rangesOfSites(
    tx,
    studyId,
    [...live.values()].map((r) => r.siteId),
  );
  const links = await tx
    .select({ crfId: crfStageCrfs.crfId, repeat: crfStageCrfs.repeat })
    .from(crfStageCrfs)
    .where(inArray(crfStageCrfs.crfId, crfIds));
  const singleForm = (crfId: number) => !links.some((l) => l.crfId === crfId && l.repeat !== 1);

  // Locked patients (and every one in a locked or finished study) are refused, nothing of theirs written.
  const lockOf = await lockRefusals(
    tx,
    studyId,
    all.map((t) => ({ subjectRecordId: t.subjectRecordId, crfDataRecordId: t.existing?.id })),
  );
  const waves = Math.max(...patients.map((p) => p.length));
  for (let k = 0; k < waves; k += 1) {
    const wave = patients.flatMap((p) => (p[k] ? [p[k]] : []));
    const ready: WriteTarget[] = [];
    for (const t of wave) {
      // In form-write's order: the form right, the casebook and form (404), the patient right (a patient moved to
      // another site since the plan is refused as at planning), the locks.
      const casebook = live.get(t.subjectRecordId);
      const refusal =
        formRefusal(writer, t.form.crfId, options.submit) ??
        (!casebook ? AppError.notFound('subject.not_found', '患者不存在') : null) ??
        (!forms.has(t.form.crfId) ? AppError.notFound('crf.not_found', 'CRF不存在') : null) ??
        patientRefusal(writer, casebook!) ??
        lockOf({ subjectRecordId: t.subjectRecordId, crfDataRecordId: t.existing?.id });
      if (refusal) refuse(t, refusal);
      else ready.push(t);
    }
    // The records the wave changes, locked (in id order) and checked against the version the plan read.
    const updating = ready.filter((t) => t.existing);
    const locked = new Map<number, Stored>();
    if (updating.length > 0) {
      const rows = await tx
        .select()
        .from(crfDataRecords)
        .where(
          and(
            eq(crfDataRecords.studyId, studyId),
            inArray(
              crfDataRecords.id,
              updating.map((t) => t.existing!.id),
            ),
            isNull(crfDataRecords.deletedAt),
          ),
        )
        .orderBy(asc(crfDataRecords.id))
        .for('update');
      for (const r of rows) locked.set(r.id, r);
    }
    const judged: Array<{
      t: WriteTarget;
      existing: Stored | undefined;
      crfVersion: number;
      j: SaveJudgement;
      labRanges: Record<string, unknown>;
    }> = [];
    const wanted = ready.map((t) => {
      const existing = t.existing ? locked.get(t.existing.id) : undefined;
      // A test patient's new record fills the open draft (draft-version.service.ts), as on the form page.
      const version =
        existing?.crfVersion ?? versionForNewRecord(forms.get(t.form.crfId)!, live.get(t.subjectRecordId)!.test);
      return { crfId: t.form.crfId, version };
    });
    // The record's version and the form's current one: identifier items flagged in either (formIdentifiers).
    const currents = [...new Set(wanted.map((w) => w.crfId))].map((crfId) => ({
      crfId,
      version: forms.get(crfId)!.currentVersion,
    }));
    const definitions = await definitionsOf(tx, [...wanted, ...currents]);
    // Other forms' values for the definitions that refer to any: one read per form of the wave.
    const others = new Map<string, Map<number, Record<string, Record<string, unknown>>>>();
    for (const key of new Set(wanted.map((w) => versionKey(w.crfId, w.version)))) {
      const definition = definitions.get(key);
      if (!definition || formReferencesOf(definition).length === 0) continue;
      const ids = ready.filter((_, i) => versionKey(wanted[i]!.crfId, wanted[i]!.version) === key);
      others.set(
        key,
        await otherFormValuesOf(tx, studyId, [...new Set(ids.map((t) => t.subjectRecordId))], definition),
      );
    }
    for (const [i, t] of ready.entries()) {
      // The engine runs for each record of the wave: other requests get the event loop every few milliseconds.
      await slice();
      const existing = t.existing ? locked.get(t.existing.id) : undefined;
      if (
        t.existing &&
        (!existing || existing.subjectRecordId !== t.subjectRecordId || existing.crfId !== t.form.crfId)
      ) {
        refuse(t, AppError.notFound('crf_data.not_found', '表单记录不存在'));
        continue;
      }
      if (existing && existing.version !== t.existing!.version) {
        refuse(t, stale(existing, t.values));
        continue;
      }
      const key = versionKey(wanted[i]!.crfId, wanted[i]!.version);
      const definition = definitions.get(key);
      if (!definition) {
        refuse(t, AppError.notFound('crf.version_not_found', 'CRF版本不存在'));
        continue;
      }
      const casebook = live.get(t.subjectRecordId)!;
      // As the form save judges (form-lab-ranges.ts): the site's range at the sample date, stored with the record.
      const labRanges = labRangesOfRecord(siteRowsOf(siteRanges, casebook.siteId), {
        gender: casebook.gender,
        birth: casebook.birth,
        definition,
        values: { ...existing?.values, ...t.values },
        recordCreatedAt: existing?.createdAt ?? null,
        now,
        timeZone: access.timeZone,
      });
      try {
        const j = judgeSave(definition, t.values, existing, {
          submit: options.submit,
          reason: options.reason,
          now,
          timeZone: access.timeZone,
          gender: casebook.gender,
          forms: others.get(key)?.get(t.subjectRecordId) ?? {},
          ...(t.missing ? { missing: t.missing } : {}),
          missingCodes,
          referenceRanges: labRanges.overrides,
          identifiers: {
            items: identifierItemsOf(
              definition,
              ...[definitions.get(versionKey(t.form.crfId, forms.get(t.form.crfId)!.currentVersion))].flatMap((d) =>
                d ? [d] : [],
              ),
            ),
            mayChange: writerMayChangeIdentifiers(writer),
          },
        });
        judged.push({ t, existing, crfVersion: wanted[i]!.version, j, labRanges: labRanges.used });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        refuse(t, err);
      }
    }
    if (refusals.length > 0) throw new BatchRefused(refusals);

    // New records: one insert. A single form's record another save created meanwhile is a conflict (theirs stands).
    const creating = judged.filter((x) => !x.existing);
    const ids = new Map<WriteTarget, number>();
    if (creating.length > 0) {
      const inserted = await tx
        .insert(crfDataRecords)
        .values(
          creating.map(({ t, crfVersion, j, labRanges }) => ({
            studyId,
            subjectRecordId: t.subjectRecordId,
            crfId: t.form.crfId,
            crfVersion,
            state: j.state,
            version: 1,
            values: j.after,
            missing: j.missing,
            labRanges,
            singleForm: singleForm(t.form.crfId),
            createdBy: user.userId,
            updatedBy: user.userId,
            createdAt: now,
            updatedAt: now,
            submittedAt: options.submit ? now : null,
          })),
        )
        .onConflictDoNothing()
        .returning({
          id: crfDataRecords.id,
          subjectRecordId: crfDataRecords.subjectRecordId,
          crfId: crfDataRecords.crfId,
        });
      // A wave holds one record per patient: patient and form name the inserted row.
      const byKey = new Map(inserted.map((r) => [`${r.subjectRecordId}:${r.crfId}`, r.id] as const));
      for (const { t } of creating) {
        const id = byKey.get(`${t.subjectRecordId}:${t.form.crfId}`);
        if (id !== undefined) {
          ids.set(t, id);
          continue;
        }
        const winner = await singleLiveRecord(tx, t.subjectRecordId, t.form.crfId);
        refuse(t, winner ? stale(winner, t.values) : AppError.notFound('crf_data.not_found', '表单记录不存在'));
      }
      if (refusals.length > 0) throw new BatchRefused(refusals);
    }

    // Changed records: one update from a VALUES list.
    const updates = judged.filter((x) => x.existing);
    for (let at = 0; at < updates.length; at += UPDATE_CHUNK) {
      const rows = updates.slice(at, at + UPDATE_CHUNK).map(({ existing, j, labRanges }) => {
        const submits = options.submit && !j.wasSubmitted;
        return sql`(${existing!.id}::int, ${JSON.stringify(j.after)}::jsonb, ${j.state}::int, ${existing!.version + 1}::int, ${JSON.stringify(j.sdv)}::jsonb, ${submits}::boolean, ${JSON.stringify(j.missing)}::jsonb, ${JSON.stringify(labRanges)}::jsonb)`;
      });
      await tx.execute(sql`update crf_data_records as r
        set "values" = v.vals, state = v.state, version = v.version, sdv = v.sdv, missing = v.missing,
          lab_ranges = v.lab_ranges, updated_by = ${user.userId},
          updated_at = ${now.toISOString()}::timestamptz,
          submitted_at = case when v.submits then ${now.toISOString()}::timestamptz else r.submitted_at end
        from (values ${sql.join(rows, sql`, `)}) as v(id, vals, state, version, sdv, submits, missing, lab_ranges)
        where r.id = v.id and r.study_id = ${studyId}`);
    }
    for (const { t, existing } of updates) ids.set(t, existing!.id);

    const entries: AuditEntry[] = [];
    const events: DomainEvent[] = [];
    const voiding = new Map<number, string>();
    for (const { t, existing, crfVersion, j } of judged) {
      const id = ids.get(t)!;
      const submits = options.submit && !j.wasSubmitted;
      const base = {
        studyId,
        subjectRecordId: t.subjectRecordId,
        crfDataRecordId: id,
        crfId: t.form.crfId,
        crfVersion,
      };
      entries.push(...saveAuditEntries(base, existing, { ...j, before: existing?.values ?? {} }, submits));
      if (j.changed.length > 0 && !voiding.has(t.subjectRecordId)) {
        voiding.set(t.subjectRecordId, signatureVoidReason(forms.get(t.form.crfId)!.title));
      }
      events.push(
        formSavedEvent({
          writer,
          studyId,
          subjectId: live.get(t.subjectRecordId)!.subjectId,
          crfId: t.form.crfId,
          recordId: id,
          submitsNow: submits,
        }),
      );
      if (existing) counts.updated += 1;
      else counts.created += 1;
      counts.values += j.changed.length;
    }
    // Signatures of the patients whose data changed are void, as after a save on the form page.
    if (voiding.size > 0) {
      const casebooks = [...voiding].map(([subjectRecordId, why]) => ({ subjectRecordId, why }));
      const voided = await queryRows<{ id: number; subject_record_id: number }>(
        tx,
        voidSignatures(studyId, casebooks, now),
      );
      entries.push(...voidedSignatureEntries(studyId, casebooks, voided));
    }
    await appendChained(tx, chainedContent(writerActor(writer), now, entries));
    counts.lastEvent = (await ctx.events.recordMany(tx, events)).at(-1) ?? counts.lastEvent;
  }
  return counts;
}
