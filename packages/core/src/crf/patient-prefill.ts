import { isChoiceType, isDateType, isRowType, type CrfDefinition, type CrfNode } from './crf-definition.schema.js';
import { choicesOf } from './options.js';
import { dateFormatOf, isValidPartialDate } from './partial-date.js';
import { genderFromPatient, type Gender } from './reference-range.js';
import { normalizeValue } from './value-shapes.js';

/**
 * Patient fields a form item may declare with `option.patientField`: a new form for the patient
 * starts with the value typed in the patient dialog instead of asking for it again.
 */
export const PATIENT_FIELDS = [
  'identificationCode',
  'subjectName',
  'gender',
  'birth',
  'age',
  'mobile',
  'idNumber',
] as const;
export type PatientField = (typeof PATIENT_FIELDS)[number];

export const isPatientField = (value: unknown): value is PatientField =>
  typeof value === 'string' && (PATIENT_FIELDS as readonly string[]).includes(value);

/** What the patient record holds, as the patient answer carries it (gender in the patient encoding: 1 male, 0 female). */
export type PatientFacts = Partial<Record<PatientField, string | number | null | undefined>>;

/**
 * The one gender mapping between the patient record and a form item: the option labelled 男 (or 男性)
 * is male, the one labelled 女 (or 女性) female, whatever codes the form gives them. Forms number gender
 * every way (1/2, 1/0, M/F, the forms context's 0/1), but the label says what it means.
 */
const GENDER_LABELS: Record<Gender, readonly string[]> = { male: ['男', '男性'], female: ['女', '女性'] };

/** The code of the item's option for a gender, found by its label; null when no option is labelled so. */
export function genderOptionValue(node: Pick<CrfNode, 'option'>, gender: Gender): string | null {
  const labels = GENDER_LABELS[gender];
  return choicesOf(node.option).find((c) => labels.includes(c.text.trim()))?.value ?? null;
}

const TEXT_TYPES: readonly string[] = ['input', 'text', 'textarea'];
const ALLOWED_TYPES: Record<PatientField, readonly string[]> = {
  identificationCode: TEXT_TYPES,
  subjectName: TEXT_TYPES,
  mobile: TEXT_TYPES,
  idNumber: TEXT_TYPES,
  gender: ['radio', 'select'],
  birth: ['date', 'partialDate', ...TEXT_TYPES],
  age: ['int', 'real', 'number', ...TEXT_TYPES],
};

/** What is wrong with an item's patientField, for the linter; null when it is fine or absent. */
export function patientFieldProblem(node: CrfNode, inRows: boolean): string | null {
  const field = node.option.patientField;
  if (field === undefined || field === '') return null;
  if (!isPatientField(field)) return `patientField 无效：${field}（可用 ${PATIENT_FIELDS.join('、')}）`;
  if (inRows) return '列表组或表格中的题目不能使用 patientField';
  if (node.option.calc) return '计算题目不能使用 patientField';
  if (!ALLOWED_TYPES[field].includes(node.type)) {
    return `patientField ${field} 不能用于 ${node.type} 类型的题目（可用 ${ALLOWED_TYPES[field].join('、')}）`;
  }
  if (field === 'gender' && (!genderOptionValue(node, 'male') || !genderOptionValue(node, 'female'))) {
    return 'patientField gender 需要文字为“男”和“女”的选项';
  }
  return null;
}

function valueFor(node: CrfNode, field: PatientField, patient: PatientFacts): unknown {
  const raw = patient[field];
  if (raw === null || raw === undefined || raw === '') return undefined;
  if (field === 'gender') {
    const gender = genderFromPatient(raw);
    return gender ? (genderOptionValue(node, gender) ?? undefined) : undefined;
  }
  const text = String(raw);
  if (field === 'birth' && isDateType(node.type)) {
    // A birth date is yyyy-MM-dd; an item that asks for less (yyyy-MM) takes the start of it.
    const format = dateFormatOf(node);
    const date = text.slice(0, format.length);
    return isValidPartialDate(date, format) ? date : undefined;
  }
  return text;
}

/**
 * The values a new form for this patient starts with, from the items that declare a patientField.
 * Fields absent from `patient` (or blank) are left out, so a caller that may not see identifiers
 * passes only what it may see. Items inside list-group rows never map (the linter refuses them).
 * These are ordinary values: saved and audited when the user saves the form.
 */
export function patientPrefill(definition: CrfDefinition, patient: PatientFacts): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (isRowType(node.type)) continue;
      const field = node.option.patientField;
      if (node.name && isPatientField(field) && !node.option.calc) {
        const value = valueFor(node, field, patient);
        if (value !== undefined && (field !== 'gender' || isChoiceType(node.type))) {
          out[node.name] = normalizeValue(node, value);
        }
      }
      walk(node.children);
    }
  };
  walk(definition.children);
  return out;
}
