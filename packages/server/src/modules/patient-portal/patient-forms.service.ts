import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm';
import { FOLLOW_STATES, FORM_STATE, genderFromPatient, initialValues, maskName } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfs,
  followRecordCrfs,
  followRecords,
  patientDiseaseNotes,
  patientReportedCrfs,
  studies,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { actorOf } from '../audit/audit.service.js';
import { definitionOf } from '../study/crf-definitions.js';
import { isRepeatable, liveRecordsOfForm } from '../crf-data/crf-data.service.js';
import { saveForm, type FormWriter } from '../crf-data/form-write.js';
import { otherFormValues } from '../crf-data/linked-values.service.js';
import type { PatientSession } from './patient-binding.service.js';
import { patientActor, proCrfIds, settingsRow } from './patient-portal.service.js';

// The bound patient's side: the home page and the patient-reported forms they fill.

/** The patient's home: the study, the patient's own code and masked name, the greeting and the disease note. */
export async function patientHome(ctx: AppContext, patient: PatientSession) {
  const [study] = await ctx.db
    .select({ studyName: studies.studyName })
    .from(studies)
    .where(eq(studies.studyId, patient.studyId));
  const settings = await settingsRow(ctx.db, patient.studyId);
  const [note] = await ctx.db
    .select({ title: patientDiseaseNotes.title, content: patientDiseaseNotes.content })
    .from(patientDiseaseNotes)
    .where(
      and(eq(patientDiseaseNotes.studyId, patient.studyId), eq(patientDiseaseNotes.diseaseCode, patient.diseaseCode)),
    );
  return {
    studyId: patient.studyId,
    studyName: study?.studyName ?? '',
    identificationCode: patient.identificationCode,
    subjectName: maskName(patient.subjectName),
    welcome: settings.welcome ?? '',
    disease: note ?? null,
    forms: await patientForms(ctx, patient),
  };
}

async function latestRecord(db: Db, subjectRecordId: number, crfId: number) {
  const [row] = await db
    .select()
    .from(crfDataRecords)
    .where(liveRecordsOfForm(subjectRecordId, crfId))
    .orderBy(desc(crfDataRecords.id))
    .limit(1);
  return row;
}

/** 待填写 (no record), 填写中 (saved, not submitted), 已提交. */
const patientState = (record: { state: number } | undefined) =>
  !record ? 0 : record.state === FORM_STATE.submitted ? 2 : 1;

/**
 * The patient's open follow-up slot for a form: a due or overdue visit (待随访, 已超窗) naming the form with no
 * record yet, the earliest first. A patient-reported form filled while one is open is filled for that visit.
 */
async function openVisitSlot(db: Db, patient: PatientSession, crfId: number) {
  const [slot] = await db
    .select({
      followRecordCrfId: followRecordCrfs.id,
      visitName: followRecords.visitName,
      plannedDate: followRecords.plannedDate,
    })
    .from(followRecordCrfs)
    .innerJoin(followRecords, eq(followRecords.id, followRecordCrfs.followRecordId))
    .where(
      and(
        eq(followRecordCrfs.studyId, patient.studyId),
        eq(followRecords.subjectRecordId, patient.subjectRecordId),
        eq(followRecordCrfs.crfId, crfId),
        isNull(followRecordCrfs.crfDataRecordId),
        inArray(followRecords.state, [FOLLOW_STATES.DUE, FOLLOW_STATES.OVERDUE]),
      ),
    )
    .orderBy(asc(followRecords.plannedDate), asc(followRecords.id))
    .limit(1);
  return slot ?? null;
}

type DataRecord = typeof crfDataRecords.$inferSelect;

/**
 * The record a patient works on for a form. Without an open visit: the newest record. With one: the newest
 * record while it is an unsubmitted draft of no other visit; otherwise a new record for the visit when the
 * form repeats (a single form keeps its one record).
 */
async function workingRecord(
  db: Db,
  patient: PatientSession,
  crfId: number,
  slot: { followRecordCrfId: number } | null,
): Promise<DataRecord | undefined> {
  const latest = await latestRecord(db, patient.subjectRecordId, crfId);
  if (!slot || !latest) return latest;
  if (latest.state !== FORM_STATE.submitted) {
    const [linked] = await db
      .select({ id: followRecordCrfs.id })
      .from(followRecordCrfs)
      .where(and(eq(followRecordCrfs.studyId, patient.studyId), eq(followRecordCrfs.crfDataRecordId, latest.id)));
    if (!linked) return latest;
  }
  return (await isRepeatable(db, crfId)) ? undefined : latest;
}

/**
 * The forms assigned to the patient: the study's patient-reported CRFs, each with the patient's progress on the
 * record they work on and the follow-up visit it is for, when one is open.
 */
export async function patientForms(ctx: AppContext, patient: PatientSession) {
  const rows = await ctx.db
    .select({ crfId: crfs.id, title: crfs.title })
    .from(patientReportedCrfs)
    .innerJoin(crfs, eq(crfs.id, patientReportedCrfs.crfId))
    .where(eq(patientReportedCrfs.studyId, patient.studyId))
    .orderBy(asc(crfs.id));
  const out = [];
  for (const row of rows) {
    const slot = await openVisitSlot(ctx.db, patient, row.crfId);
    const record = await workingRecord(ctx.db, patient, row.crfId, slot);
    out.push({
      ...row,
      state: patientState(record),
      updateTime: record?.updatedAt ?? null,
      visitName: slot?.visitName ?? null,
    });
  }
  return out;
}

async function requireAssigned(db: Db, patient: PatientSession, crfId: number) {
  const [row] = await db
    .select({ crfId: crfs.id, title: crfs.title, currentVersion: crfs.currentVersion })
    .from(patientReportedCrfs)
    .innerJoin(crfs, eq(crfs.id, patientReportedCrfs.crfId))
    .where(and(eq(patientReportedCrfs.studyId, patient.studyId), eq(patientReportedCrfs.crfId, crfId)));
  // Any other form, of this study or another, is not the patient's: the same answer either way.
  if (!row) throw AppError.forbidden('patient.form_forbidden', '无权填写该表单');
  return row;
}

/** One assigned form: its definition, the patient's values and what they may still do. */
export async function patientForm(ctx: AppContext, patient: PatientSession, crfId: number) {
  const crf = await requireAssigned(ctx.db, patient, crfId);
  const slot = await openVisitSlot(ctx.db, patient, crfId);
  const record = await workingRecord(ctx.db, patient, crfId, slot);
  const definition = await definitionOf(ctx.db, crfId, record?.crfVersion ?? crf.currentVersion);
  const pro = new Set(await proCrfIds(ctx.db, patient.studyId));
  return {
    crf: { id: crf.crfId, title: crf.title, definition },
    visit: slot ? { visitName: slot.visitName, plannedDate: slot.plannedDate } : null,
    record: record ? { crfDataRecordId: record.id, version: record.version, values: record.values } : null,
    state: patientState(record),
    editable: record?.state !== FORM_STATE.submitted,
    initialValues: record
      ? null
      : initialValues(definition, {
          now: ctx.clock(),
          timeZone: patient.timeZone,
          gender: genderFromPatient(patient.gender),
        }),
    // What form("标题", "item") reads, from the patient's own patient-reported forms only: never staff's forms.
    formValues: await otherFormValues(ctx.db, patient.studyId, patient.subjectRecordId, definition, (id) =>
      pro.has(id),
    ),
    timeZone: patient.timeZone,
  };
}

/**
 * A patient saves or submits an assigned form through the one write path (form-write.ts), as its author: the
 * form page's rules (the engine on the server, submit rules, stale versions), audit rows, signatures and
 * verification marks voided, the event. The portal only says which record: the one the patient works on (a new
 * one for an open visit of a repeating form). A submitted form is closed to the patient: a correction is staff's,
 * with a reason.
 */
export async function savePatientForm(
  ctx: AppContext,
  patient: PatientSession,
  crfId: number,
  input: { values: Record<string, unknown>; submit: boolean; crfDataRecordId?: number | null; version?: number | null },
) {
  const writer: FormWriter = {
    kind: 'patient',
    subjectRecordId: patient.subjectRecordId,
    author: actorOf(patientActor(patient.identificationCode)),
    timeZone: patient.timeZone,
  };
  const written = await saveForm(ctx, writer, async (tx) => {
    const slot = await openVisitSlot(tx, patient, crfId);
    const working = await workingRecord(tx, patient, crfId, slot);
    return {
      subjectRecordId: patient.subjectRecordId,
      crfId,
      crfDataRecordId: working?.id ?? null,
      version: input.version ?? null,
      read: { crfDataRecordId: input.crfDataRecordId ?? null, version: input.version ?? null },
      values: input.values,
      submit: input.submit,
      reason: null,
      followRecordCrfId: slot?.followRecordCrfId ?? null,
    };
  });
  return {
    crfDataRecordId: written.crfDataRecordId,
    version: written.version,
    state: patientState({ state: written.state }),
    changedItems: written.changedItems,
  };
}
