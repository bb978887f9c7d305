import type { Dayjs } from 'dayjs';
import { DEFAULT_BASE_CONFIG, latestBirthDate, subjectFieldErrors, type SubjectFields } from '@ecrf/core';
import type { Subject, SubjectBody, SubjectFormModel } from '../../../api/subject.api';

/** platform §4: add, edit and crflook (view). */
export type PatientDialogMode = 'add' | 'edit' | 'crflook';

export type PatientField = (typeof DEFAULT_BASE_CONFIG)[number]['name'];

export interface PatientFormValues {
  identificationCode?: string;
  subjectName?: string;
  gender?: number;
  birth?: Dayjs | null;
  mobile?: string;
  idNumber?: string;
  diseaseCode?: string;
  deptId?: number | null;
}

/** Identifiers the server may answer masked (PIPL), in the dialog's order. */
const IDENTIFIER_FIELDS = ['subjectName', 'birth', 'mobile', 'idNumber'] as const;
export type IdentifierField = (typeof IDENTIFIER_FIELDS)[number];

/**
 * The fields of a patient that came masked and hold a value. The dialog starts them empty with
 * the mask as placeholder, and a field still empty at saving is left out of the body, so the
 * server keeps what it has: a mask is never sent back as a new value.
 */
export function maskedFields(subject: Subject | undefined): ReadonlySet<IdentifierField> {
  if (!subject?.identifiersMasked) return new Set();
  return new Set(IDENTIFIER_FIELDS.filter((f) => subject[f] !== null && subject[f] !== undefined && subject[f] !== ''));
}

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

const DATE = 'YYYY-MM-DD';

/** Fields the shared rules always require: the dialog shows them whatever the base config says. */
const RULE_REQUIRED: ReadonlySet<PatientField> = new Set(['subjectName', 'gender', 'diseaseCode']);

/** One patient field as the dialog shows it: the study's label, whether it shows and is marked required. */
export interface PatientFieldView {
  label: string;
  shown: boolean;
  required: boolean;
}

/**
 * The study's base config applied to a mode (SUBJ-05, SUBJ-09). With serial numbers the code
 * is not shown when adding, since the server assigns it. Gender and disease show even when a
 * study hid them, because the rules require them and a hidden required field could never be
 * saved.
 */
export function patientFieldView(
  model: SubjectFormModel,
  mode: PatientDialogMode,
  name: PatientField,
): PatientFieldView {
  const defaults = DEFAULT_BASE_CONFIG.find((f) => f.name === name)!;
  const stored = model.baseConfig.find((f) => f.name === name);
  const label = stored?.header?.trim() || defaults.header;
  const display = stored?.display ?? defaults.display;
  const configured = stored?.required ?? defaults.required;
  if (name === 'identificationCode') {
    const hidden = model.enableSerialNumber && mode === 'add';
    return { label, shown: !hidden, required: !model.enableSerialNumber };
  }
  if (RULE_REQUIRED.has(name)) return { label, shown: true, required: true };
  if (name === 'age') return { label, shown: display, required: false };
  return { label, shown: display, required: display && configured };
}

export function toSubjectFields(values: PatientFormValues): SubjectFields {
  return {
    identificationCode: values.identificationCode?.trim() ?? null,
    subjectName: values.subjectName ?? null,
    gender: values.gender ?? null,
    birth: values.birth ? values.birth.format(DATE) : null,
    mobile: values.mobile?.trim() ?? null,
    idNumber: values.idNumber?.trim() ?? null,
    diseaseCode: values.diseaseCode ?? null,
  };
}

/**
 * The rules of platform §5 with core's subjectFieldErrors, exactly as the server runs them:
 * field name → the message to show under it.
 */
export function patientErrors(
  values: PatientFormValues,
  model: SubjectFormModel,
  today: string,
  kept: ReadonlySet<IdentifierField> = new Set(),
): Record<string, string> {
  const errors = subjectFieldErrors(toSubjectFields(values), {
    baseConfig: model.baseConfig,
    today,
    serialNumbers: model.enableSerialNumber,
    diseaseCodes: model.diseases.map((d) => d.diseaseCode),
  });
  // A masked field left empty keeps its stored value, which the server checked when it was saved.
  for (const f of kept) if (blank(values[f])) delete errors[f];
  return errors;
}

/** DatePicker: a birth date later than today − 10 days can't be picked (SUBJ-17). */
export function isBirthDisabled(date: Dayjs, today: string): boolean {
  return date.format(DATE) > latestBirthDate(today);
}

/**
 * What POST/PUT /api/business/subject receive; the code is left out when the server assigns it,
 * and so is every masked field the user did not type over (`kept`).
 */
export function toSubjectBody(
  values: PatientFormValues,
  model: SubjectFormModel,
  existingCode?: string,
  kept: ReadonlySet<IdentifierField> = new Set(),
): SubjectBody {
  const fields = toSubjectFields(values);
  const code = model.enableSerialNumber ? existingCode : fields.identificationCode;
  const body: SubjectBody = {
    ...(code ? { identificationCode: code } : {}),
    subjectName: (fields.subjectName ?? '').trim(),
    gender: fields.gender as 0 | 1,
    birth: fields.birth || null,
    mobile: fields.mobile || null,
    idNumber: fields.idNumber ? fields.idNumber.toUpperCase() : null,
    diseaseCode: fields.diseaseCode!,
    deptId: values.deptId ?? null,
  };
  for (const f of kept) if (blank(body[f])) delete body[f];
  return body;
}
