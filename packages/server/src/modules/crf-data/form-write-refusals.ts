/**
 * The refusals of a save, before anything is written: the writer's right to the form and to the patient, and the
 * record's own rules (the version read, a patient's submitted form). The batch writer (form-write-batch.ts) judges
 * its rows by the same pure refusals.
 */
import { and, eq } from 'drizzle-orm';
import { crfKey, FORM_STATE } from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { patientReportedCrfs, subjectRecords } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { hasStudyPermission, seesSite } from '../../shared/study-access.js';
import { stale } from './form-rules.js';
import { conflictFor } from './identifier-values.js';
import type { Casebook, Stored } from './form-write-reads.js';
import type { FormChange, FormWriter } from './form-writer.js';

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
export async function mayWriteForm(tx: Db, writer: FormWriter, change: FormChange) {
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

/** The record's own rules for this writer, after the locks: the version read, and a patient's submitted form. */
export async function recordRefusal(tx: Db, writer: FormWriter, change: FormChange, existing: Stored | undefined) {
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
