// content=metadata, instrument, exportFieldNames and project: the project's description, no patient data.
import { completeColumn, RECORD_ID, type Project, type Selection } from './redcap-project.js';
import { redcapMissingDataCodes } from './redcap-missing.js';

/** The API metadata export: the dictionary rows under REDCap's API keys. */
export function metadataOf(project: Project, wanted: Selection) {
  return project.fields
    .filter((f) => f.row.variable === RECORD_ID || wanted.has(f))
    .map(({ row }) => ({
      field_name: row.variable,
      form_name: row.form,
      section_header: row.section,
      field_type: row.type,
      field_label: row.label,
      select_choices_or_calculations: row.choices,
      field_note: row.note,
      text_validation_type_or_show_slider_number: row.validation,
      text_validation_min: row.min,
      text_validation_max: row.max,
      identifier: row.identifier,
      branching_logic: row.branching,
      required_field: row.required,
      custom_alignment: row.alignment,
      question_number: row.questionNumber,
      matrix_group_name: row.matrixGroup,
      matrix_ranking: row.matrixRanking,
      field_annotation: row.annotation,
    }));
}

/** The API's metadata columns, in REDCap's order (the dictionary's 18 columns). */
export const METADATA_KEYS = [
  'field_name',
  'form_name',
  'section_header',
  'field_type',
  'field_label',
  'select_choices_or_calculations',
  'field_note',
  'text_validation_type_or_show_slider_number',
  'text_validation_min',
  'text_validation_max',
  'identifier',
  'branching_logic',
  'required_field',
  'custom_alignment',
  'question_number',
  'matrix_group_name',
  'matrix_ranking',
  'field_annotation',
] as const;

export function instrumentsOf(project: Project) {
  return project.instruments.map((i) => ({ instrument_name: i.form, instrument_label: i.title }));
}

/**
 * exportFieldNames: one row per export column, a checkbox one per choice, and each form's status
 * `<form>_complete` after its fields, as REDCap lists them; `only` one field (or one status).
 */
export function exportFieldNamesOf(project: Project, only: string | null) {
  const out: Array<{ original_field_name: string; choice_value: string; export_field_name: string }> = [];
  const add = (name: string, code: string, column: string) => {
    if (!only || name === only) out.push({ original_field_name: name, choice_value: code, export_field_name: column });
  };
  const recordId = project.fields.find((f) => f.row.variable === RECORD_ID);
  if (recordId) add(RECORD_ID, '', RECORD_ID);
  for (const instrument of project.instruments) {
    for (const f of project.fields) {
      if (f.instrument !== instrument || f === recordId || f.row.type === 'descriptive') continue;
      if (f.codes) for (const c of f.codes) add(f.row.variable, c.code, c.column);
      else add(f.row.variable, '', f.row.variable);
    }
    add(completeColumn(instrument.form), '', completeColumn(instrument.form));
  }
  return out;
}

export function projectInfoOf(project: Project) {
  return {
    project_id: project.studyId,
    project_title: project.title,
    creation_time: project.createdAt.toISOString().replace('T', ' ').slice(0, 19),
    production_time: '',
    in_production: 1,
    project_language: 'Chinese',
    purpose: 2,
    purpose_other: '',
    project_notes: '',
    custom_record_label: '',
    secondary_unique_field: '',
    is_longitudinal: project.longitudinal ? 1 : 0,
    has_repeating_instruments_or_events: project.repeating ? 1 : 0,
    surveys_enabled: 0,
    scheduling_enabled: 0,
    record_autonumbering_enabled: 0,
    randomization_enabled: 0,
    ddp_enabled: 0,
    project_irb_number: '',
    project_grant_number: '',
    project_pi_firstname: '',
    project_pi_lastname: '',
    display_today_now_button: 1,
    missing_data_codes: redcapMissingDataCodes(project.missingCodes),
    external_modules: '',
    bypass_branching_erase_field_prompt: 0,
  };
}
