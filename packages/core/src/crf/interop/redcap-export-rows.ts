/** The rows of a REDCap data dictionary as the exporter writes them: names, cells, HTML labels. */
import type { CrfNode } from '../crf-definition.schema.js';
import type { RedcapField } from './redcap-dictionary.js';

export type Row = Omit<RedcapField, 'row'>;

// Every cell quoted, as REDCap writes its own dictionaries: labels hold commas, quotes and line breaks.
const csvCell = (value: string) => `"${value.replace(/"/g, '""')}"`;
export const csvRow = (cells: readonly string[]) => cells.map(csvCell).join(',');

/** REDCap labels are HTML: our text is escaped so that `a<b` shows as written (the importer decodes it). */
export const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A choice label may not hold REDCap's separator. */
export const choiceLabel = (text: string) => html(text).replace(/\|/g, '｜');

/** REDCap names: lowercase letters, digits and underscores, starting with a letter; at most 100 characters. */
export const LEGAL_NAME = /^[a-z][a-z0-9_]{0,99}$/;
export function legalName(name: string, fallback: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '');
  if (cleaned === '') return fallback;
  return (/^[a-z]/.test(cleaned) ? cleaned : `v_${cleaned}`).slice(0, 100);
}
/** REDCap derives a form's menu label from its name; the importer reads the name back as the title. */
export const titleOfForm = (form: string) => form.replace(/_/g, ' ').trim();

/** Names REDCap keeps for itself besides `redcap_…` (Project::$reserved_field_names). */
const RESERVED = new Set([
  'hidden_edit_flag',
  'instance',
  'submit',
  'new',
  'return',
  'continue',
  'case',
  'switch',
  'class',
  'enum',
  'catch',
  'throw',
  'document',
  'super',
  'focus',
  'elements',
  'action',
  'event_id',
  'target',
  'field_label',
]);

/**
 * A name not yet used in the project. REDCap reserves `redcap_…`, a few words of its own (`target`, `class`…) and
 * each form's `<form>_complete` status field, so names of those shapes get a suffix too.
 */
export function uniqueName(base: string, used: Set<string>): string {
  let stem = base;
  if (/^redcap_/.test(stem)) stem = `v_${stem}`.slice(0, 100);
  if (/_complete$/.test(stem)) stem = `${stem.slice(0, 97)}_v`;
  if (RESERVED.has(stem)) stem = `${stem}_v`;
  let name = stem;
  for (let n = 2; used.has(name); n += 1) name = `${stem.slice(0, 95).replace(/_+$/, '')}_${n}`;
  used.add(name);
  return name;
}

export const isContainer = (type: CrfNode['type']) => type === 'section' || type === 'group' || type === 'card';
export const isRows = (type: CrfNode['type']) => type === 'listGroup' || type === 'table';

export function emptyRow(variable: string, form: string, type: string, label: string): Row {
  return {
    variable,
    form,
    section: '',
    type,
    label,
    choices: '',
    note: '',
    validation: '',
    min: '',
    max: '',
    identifier: '',
    branching: '',
    required: '',
    alignment: '',
    questionNumber: '',
    matrixGroup: '',
    matrixRanking: '',
    annotation: '',
  };
}
