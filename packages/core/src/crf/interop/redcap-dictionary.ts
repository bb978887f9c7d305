/** The REDCap data dictionary file: its 18 columns, read from CSV into one field per row. */
import Papa from 'papaparse';
import type { ImportIssue } from './import-result.js';

/** REDCap's 18 data dictionary columns in its order: our field key and REDCap's header, spelled as REDCap does. */
const DICTIONARY_COLUMNS = [
  ['variable', 'Variable / Field Name'],
  ['form', 'Form Name'],
  ['section', 'Section Header'],
  ['type', 'Field Type'],
  ['label', 'Field Label'],
  ['choices', 'Choices, Calculations, OR Slider Labels'],
  ['note', 'Field Note'],
  ['validation', 'Text Validation Type OR Show Slider Number'],
  ['min', 'Text Validation Min'],
  ['max', 'Text Validation Max'],
  ['identifier', 'Identifier?'],
  ['branching', 'Branching Logic (Show field only if...)'],
  ['required', 'Required Field?'],
  ['alignment', 'Custom Alignment'],
  ['questionNumber', 'Question Number (surveys only)'],
  ['matrixGroup', 'Matrix Group Name'],
  ['matrixRanking', 'Matrix Ranking?'],
  ['annotation', 'Field Annotation'],
] as const satisfies ReadonlyArray<readonly [keyof Omit<RedcapField, 'row'>, string]>;

/** The header row of a REDCap data dictionary. */
export const REDCAP_COLUMNS = DICTIONARY_COLUMNS.map(([, header]) => header);
/** The field of each dictionary column, in column order. */
export const REDCAP_FIELD_KEYS = DICTIONARY_COLUMNS.map(([key]) => key);
const COLUMNS = Object.fromEntries(REDCAP_FIELD_KEYS.map((key, i) => [key, i])) as Record<
  (typeof REDCAP_FIELD_KEYS)[number],
  number
>;

export interface RedcapField {
  row: number;
  variable: string;
  form: string;
  section: string;
  type: string;
  label: string;
  choices: string;
  note: string;
  validation: string;
  min: string;
  max: string;
  identifier: string;
  branching: string;
  required: string;
  alignment: string;
  questionNumber: string;
  matrixGroup: string;
  matrixRanking: string;
  annotation: string;
}

export function parseRedcapCsv(text: string): { fields: RedcapField[]; issues: ImportIssue[] } {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: 'greedy' });
  const issues: ImportIssue[] = parsed.errors.map((e) => ({
    severity: 'error',
    row: (e.row ?? 0) + 1,
    message: `CSV 格式错误：${e.message}`,
  }));
  const [header, ...rows] = parsed.data;
  if (!header || header.length < 12 || !/variable|field_name/i.test(header[0] ?? '')) {
    issues.push({
      severity: 'error',
      row: 1,
      message: '不是 REDCap 数据字典：第一行应为 Variable / Field Name, Form Name, … 等列名',
    });
    return { fields: [], issues };
  }
  if (rows.length === 0) {
    issues.push({
      severity: 'error',
      row: 2,
      message: '数据字典只有列名行，没有任何字段：请从第二行起每行填写一个字段',
    });
    return { fields: [], issues };
  }
  const fields = rows.map((cells, i) => {
    const cell = (key: keyof typeof COLUMNS) => (cells[COLUMNS[key]] ?? '').trim();
    return {
      row: i + 2,
      variable: cell('variable'),
      form: cell('form'),
      section: cell('section'),
      type: cell('type').toLowerCase(),
      label: cell('label'),
      choices: cell('choices'),
      note: cell('note'),
      validation: cell('validation').toLowerCase(),
      min: cell('min'),
      max: cell('max'),
      identifier: cell('identifier'),
      branching: cell('branching'),
      required: cell('required'),
      alignment: cell('alignment').toUpperCase(),
      questionNumber: cell('questionNumber'),
      matrixGroup: cell('matrixGroup'),
      matrixRanking: cell('matrixRanking'),
      annotation: cell('annotation'),
    };
  });
  return { fields, issues };
}
