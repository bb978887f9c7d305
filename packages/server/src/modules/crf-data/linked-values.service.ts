import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import {
  formReferencesOf,
  identifierItemsOf,
  maskIdentifierItems,
  patientPrefill,
  SUBJECT_IDENTIFIER_FIELDS,
  type CrfDefinition,
  type PatientFacts,
} from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { crfDataRecords, crfs } from '../../db/schema/index.js';
import { definitionsOf, versionKey } from '../study/crf-definitions.js';

/** Values of the patient's other forms, by form title, as `EvaluationContext.forms` takes them. */
export type OtherFormValues = Record<string, Record<string, unknown>>;

/**
 * What the definition's form("标题", "item") calls read for one patient: the newest live record (the
 * one created last) of each named form, only the named items. One statement whatever the number of
 * references, none when there is none; filtered by study as every clinical read is. `viewable`
 * leaves out forms the caller may not view (the browser's copy); the server's own evaluation of a
 * save reads them all, since its verdict is the one stored. `identifiers` false (a caller without
 * 查看患者身份信息) reads the other forms' identifier items masked, as on their own pages.
 */
export async function otherFormValues(
  db: Db,
  studyId: number,
  subjectRecordId: number,
  definition: CrfDefinition,
  viewable: (crfId: number) => boolean = () => true,
  identifiers = true,
): Promise<OtherFormValues> {
  const byPatient = await otherFormValuesOf(db, studyId, [subjectRecordId], definition, viewable, identifiers);
  return byPatient.get(subjectRecordId) ?? {};
}

/**
 * `otherFormValues` for several patients in one statement (none when the definition has no reference): an
 * import judges a batch of patients' records of one form together. Patients without any named form are absent.
 */
export async function otherFormValuesOf(
  db: Db,
  studyId: number,
  subjectRecordIds: readonly number[],
  definition: CrfDefinition,
  viewable: (crfId: number) => boolean = () => true,
  identifiers = true,
): Promise<Map<number, OtherFormValues>> {
  const out = new Map<number, OtherFormValues>();
  const references = formReferencesOf(definition);
  if (references.length === 0 || subjectRecordIds.length === 0) return out;
  const titles = [...new Set(references.map((r) => r.form))];
  const rows = await db
    .selectDistinctOn([crfDataRecords.subjectRecordId, crfs.title], {
      subjectRecordId: crfDataRecords.subjectRecordId,
      crfId: crfs.id,
      title: crfs.title,
      values: crfDataRecords.values,
      version: crfDataRecords.crfVersion,
      currentVersion: crfs.currentVersion,
    })
    .from(crfDataRecords)
    .innerJoin(crfs, eq(crfs.id, crfDataRecords.crfId))
    .where(
      and(
        eq(crfDataRecords.studyId, studyId),
        inArray(crfDataRecords.subjectRecordId, [...subjectRecordIds]),
        isNull(crfDataRecords.deletedAt),
        eq(crfs.studyId, studyId),
        inArray(crfs.title, titles),
      ),
    )
    .orderBy(crfDataRecords.subjectRecordId, crfs.title, desc(crfDataRecords.id));
  const forms = identifiers
    ? null
    : await definitionsOf(
        db,
        rows.flatMap((r) => [
          { crfId: r.crfId, version: r.version },
          { crfId: r.crfId, version: r.currentVersion },
        ]),
      );
  for (const row of rows) {
    if (!viewable(row.crfId)) continue;
    if (forms) {
      const own = [row.version, row.currentVersion].flatMap((v) => forms.get(versionKey(row.crfId, v)) ?? []);
      row.values = maskIdentifierItems(identifierItemsOf(...own), row.values);
    }
    const values: Record<string, unknown> = {};
    for (const { form, item } of references) {
      if (form === row.title && Object.hasOwn(row.values, item)) values[item] = row.values[item];
    }
    const patient = out.get(row.subjectRecordId) ?? {};
    patient[row.title] = values;
    out.set(row.subjectRecordId, patient);
  }
  return out;
}

/** The patient as answered to the caller (clear or masked, see subject.service `present`). */
interface PresentedPatient {
  identificationCode?: string | null;
  subjectName?: string | null;
  gender?: number | null;
  birth?: string | null;
  age?: number | null;
  mobile?: string | null;
  idNumber?: string | null;
  identifiersMasked?: boolean;
}

/**
 * The values a new form starts with from the patient record (items with option.patientField). A
 * caller who sees identifiers masked gets none of them prefilled: a masked value is no value, and the
 * clear one must not reach them through the form. Gender, age and the study's subject code are not
 * identifiers and are prefilled for everyone.
 */
export function prefillFromPatient(definition: CrfDefinition, patient: PresentedPatient): Record<string, unknown> {
  const facts: PatientFacts = {
    identificationCode: patient.identificationCode,
    subjectName: patient.subjectName,
    gender: patient.gender,
    birth: patient.birth,
    age: patient.age,
    mobile: patient.mobile,
    idNumber: patient.idNumber,
  };
  if (patient.identifiersMasked !== false) for (const field of SUBJECT_IDENTIFIER_FIELDS) delete facts[field];
  return patientPrefill(definition, facts);
}
