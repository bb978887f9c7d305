import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import {
  changedItemNames,
  choicesOf,
  compileExpression,
  ExpressionError,
  FORM_STATE,
  isEmptyValue,
  nowString,
  readChoiceList,
  recordEnv,
  todayString,
  truthy,
  type CompiledExpression,
  type CrfDefinition,
  type CrfNode,
} from '@ecrf/core';
import {
  exportRedcapDictionary,
  translateRedcapLogic,
  type RedcapFieldSource,
  type RedcapFormSource,
} from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfStageCrfs,
  crfStages,
  crfs,
  studies,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { can } from '../crf-data/crf-data.service.js';
import { saveForm } from '../crf-data/form-write.js';
import { recordFile, storageKeyOf, type receiveFile } from '../files/file.service.js';
import { openStoredFile, storedFileOf } from '../files/stored-value.js';
import { definitionOf, nodesOf } from '../crf-data/crf-definitions.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { inCallerSites } from '../../shared/patient-site.js';
import { seesSite } from '../../shared/study-access.js';
import { ApiRefusal, type ApiCaller } from './api-token.service.js';

/** Our patient code is REDCap's record ID: the first field of every exported dictionary. */
export const RECORD_ID = 'record_id';
/** The REDCap version we answer `content=version` with: the API generation whose parameters we follow. */
export const REDCAP_VERSION = '14.0.0';
const EVENT = 'redcap_event_name';
const REPEAT_INSTRUMENT = 'redcap_repeat_instrument';
const REPEAT_INSTANCE = 'redcap_repeat_instance';
const FILE_TYPES = new Set<CrfNode['type']>(['fileUpload', 'imageUpload', 'videoUpload']);
/** Every imported value's audit reason (a caller's own reason is added for submitted forms). */
export const API_IMPORT_REASON = 'API导入';

type DictRow = ReturnType<typeof exportRedcapDictionary>['rows'][number];

interface Instrument extends RedcapFormSource {
  crfId: number;
  title: string;
  /** The CRF repeats (repeat 0 in a stage): its records are instances. */
  repeating: boolean;
  event: string | null;
  crf: CrfDefinition;
}

interface Field {
  row: DictRow;
  source: RedcapFieldSource;
  instrument: Instrument;
  node: CrfNode | undefined;
  /** Checkbox (and multi-select) fields export one column per choice. */
  codes: Array<{ code: string; column: string; label: string }> | null;
}

export interface Project {
  studyId: number;
  title: string;
  createdAt: Date;
  longitudinal: boolean;
  repeating: boolean;
  events: Array<{ name: string; label: string }>;
  /** Instruments the caller may view, in dictionary order. */
  instruments: Instrument[];
  /** Fields the caller may see (record_id first), in dictionary order. */
  fields: Field[];
  byVariable: Map<string, Field>;
  /**
   * The sites whose patients (records) the caller reads and writes: the token owner's, as the study guard reads
   * them at each call (分中心); `null` for every site. A record of another site is not exported and not imported.
   */
  siteIds: number[] | null;
}

const legalName = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '');

/** REDCap's checkbox export column: `<field>___<code>` with the code in lower case and other characters as `_`. */
export const checkboxColumn = (variable: string, code: string) =>
  `${variable}___${code.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;

/**
 * The study as a REDCap project for one caller: the dictionary of every CRF's current version (written for
 * all forms, so variable names never depend on who asks), cut to the forms the caller may view and, without
 * the identifier permission, without items marked as identifiers.
 */
export async function loadProject(ctx: AppContext, caller: ApiCaller): Promise<Project> {
  const { access } = caller;
  const [study] = await ctx.db.select().from(studies).where(eq(studies.studyId, access.studyId));
  if (!study) throw new ApiRefusal(403, '项目不存在');
  const forms = await ctx.db.select().from(crfs).where(eq(crfs.studyId, access.studyId)).orderBy(asc(crfs.id));
  const stages = await ctx.db
    .select()
    .from(crfStages)
    .where(eq(crfStages.studyId, access.studyId))
    .orderBy(asc(crfStages.orderNum), asc(crfStages.id));
  const links = await ctx.db.select().from(crfStageCrfs).where(eq(crfStageCrfs.studyId, access.studyId));
  const definitions = await Promise.all(forms.map((f) => definitionOf(ctx.db, f.id, f.currentVersion)));
  const dictionary = exportRedcapDictionary(definitions, { recordId: RECORD_ID });

  const usedEvents = new Set<string>();
  const events = stages.map((s, i) => {
    let base = legalName(s.name) || `event_${i + 1}`;
    while (usedEvents.has(base)) base = `${base}_${i + 1}`;
    usedEvents.add(base);
    return { stageId: s.id, name: `${base}_arm_1`, label: s.name };
  });
  const longitudinal = events.length > 0;
  const unscheduled = { name: 'unscheduled_arm_1', label: '未分阶段' };
  const eventOf = (crfId: number) => {
    if (!longitudinal) return null;
    const stageIds = links.filter((l) => l.crfId === crfId).map((l) => l.stageId);
    return events.find((e) => stageIds.includes(e.stageId))?.name ?? unscheduled.name;
  };
  const instruments: Instrument[] = dictionary.forms
    .map((f) => {
      const crf = forms[f.definition]!;
      return {
        ...f,
        crfId: crf.id,
        title: f.rows ? `${crf.title} ${f.rows}` : crf.title,
        repeating: links.some((l) => l.crfId === crf.id && l.repeat !== 1),
        event: eventOf(crf.id),
        crf: definitions[f.definition]!,
      };
    })
    .filter((i) => can(access, i.crfId, 'view'))
    // A list group of a repeating form would be a repetition inside a repetition, which REDCap cannot hold.
    .filter((i, _, all) => !i.rows || !all.find((p) => p.crfId === i.crfId && !p.rows)?.repeating);
  const byForm = new Map(instruments.map((i) => [i.form, i]));
  const identifiers = seesIdentifiers(access);
  const fields: Field[] = [];
  for (const row of dictionary.rows) {
    if (row.variable === RECORD_ID) {
      const first = instruments[0] ?? byForm.values().next().value;
      if (first) {
        fields.push({
          row,
          source: { ...first, variable: RECORD_ID, item: null },
          instrument: first,
          node: undefined,
          codes: null,
        });
      }
      continue;
    }
    const instrument = byForm.get(row.form);
    const source = dictionary.sources.get(row.variable);
    // Descriptive fields carry no value but belong to the dictionary (section headers sit on them).
    if (!instrument || !source) continue;
    if (row.identifier === 'y' && !identifiers) continue;
    const node = nodesOf(instrument.crf).get(source.item ?? '');
    const codes =
      row.type === 'checkbox' && node
        ? choicesOf(node.option).map((c) => ({
            code: c.value,
            column: checkboxColumn(row.variable, c.value),
            label: c.text,
          }))
        : null;
    fields.push({ row, source, instrument, node, codes });
  }
  return {
    studyId: access.studyId,
    title: study.studyName,
    createdAt: study.createdAt,
    longitudinal,
    repeating: instruments.some((i) => i.repeating || i.rows !== null),
    events: longitudinal ? [...events.map(({ name, label }) => ({ name, label })), unscheduled] : [],
    instruments,
    fields,
    byVariable: new Map(fields.map((f) => [f.row.variable, f])),
    siteIds: access.siteIds,
  };
}

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

/** exportFieldNames: one row per export column; a checkbox one per choice. */
export function exportFieldNamesOf(project: Project, only: string | null) {
  const out: Array<{ original_field_name: string; choice_value: string; export_field_name: string }> = [];
  for (const f of project.fields) {
    if ((only && f.row.variable !== only) || f.row.type === 'descriptive') continue;
    if (f.codes) {
      for (const c of f.codes) {
        out.push({ original_field_name: f.row.variable, choice_value: c.code, export_field_name: c.column });
      }
    } else out.push({ original_field_name: f.row.variable, choice_value: '', export_field_name: f.row.variable });
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
    missing_data_codes: '',
    external_modules: '',
    bypass_branching_erase_field_prompt: 0,
  };
}

export type Selection = Set<Field>;

/** fields[] and forms[] together (either names a field in), as REDCap reads them; unknown names are refused. */
export function selectFields(project: Project, fieldNames: string[], formNames: string[]): Selection {
  const badFields = fieldNames.filter((n) => !project.byVariable.has(n));
  if (badFields.length > 0) throw new ApiRefusal(400, `参数 fields 中的字段不存在或无权查看：${badFields.join(', ')}`);
  const known = new Set(project.instruments.map((i) => i.form));
  const badForms = formNames.filter((n) => !known.has(n));
  if (badForms.length > 0) throw new ApiRefusal(400, `参数 forms 中的表单不存在或无权查看：${badForms.join(', ')}`);
  if (fieldNames.length === 0 && formNames.length === 0) return new Set(project.fields);
  return new Set(
    project.fields.filter(
      (f) => f.row.variable === RECORD_ID || fieldNames.includes(f.row.variable) || formNames.includes(f.row.form),
    ),
  );
}

const completeColumn = (form: string) => `${form}_complete`;

/** The export columns of the selected fields in dictionary order, each main form's status after its fields. */
function columnsOf(project: Project, selected: Selection): string[] {
  const columns = [RECORD_ID];
  if (project.longitudinal) columns.push(EVENT);
  if (project.repeating) columns.push(REPEAT_INSTRUMENT, REPEAT_INSTANCE);
  const lastOfForm = new Map<string, Field>();
  for (const f of project.fields) if (selected.has(f) && f.source.item) lastOfForm.set(f.instrument.form, f);
  for (const f of project.fields) {
    if (!selected.has(f) || !f.source.item) continue;
    if (f.codes) columns.push(...f.codes.map((c) => c.column));
    else columns.push(f.row.variable);
    if (lastOfForm.get(f.instrument.form) === f && !f.instrument.rows) columns.push(completeColumn(f.instrument.form));
  }
  return columns;
}

function choiceLabel(node: CrfNode | undefined, code: string): string {
  if (!node) return code;
  return choicesOf(node.option).find((c) => c.value === code)?.text ?? code;
}

function valueText(field: Field, value: unknown, label: boolean): string {
  if (isEmptyValue(value)) return '';
  const node = field.node;
  if (node && FILE_TYPES.has(node.type)) return '[document]';
  if (node && (node.type === 'radio' || node.type === 'select') && label) return choiceLabel(node, String(value));
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export interface RecordQuery {
  records: string[];
  label: boolean;
  /** filterLogic, compiled (compileFilter): only the rows where it holds. */
  filter?: RecordFilter | null;
  /**
   * When given, only these form records (crf_data_records ids) go out: the data export's state filter. A repeating
   * form's instance numbers stay those among all the patient's live records, so a re-import finds the same ones.
   */
  recordIds?: ReadonlySet<number>;
}

export interface RecordFilter {
  compiled: CompiledExpression;
  today: string;
  now: string;
}

const NUMBER_TYPES = new Set<CrfNode['type']>(['int', 'real', 'number', 'slider']);

/**
 * filterLogic in REDCap's logic syntax, through the dictionary importer's translator into our expression
 * language: the same reading of blanks as REDCap's. Fields are those the caller may see (a hidden one is
 * "not found"); logic that cannot be translated (other events' fields, smart variables, functions we do
 * not have) is refused with the reason, never evaluated loosely.
 */
export function compileFilter(project: Project, logic: string, now: Date, timeZone: string): RecordFilter {
  const known = (variable: string) => {
    if (variable === RECORD_ID) return true;
    const field = project.byVariable.get(variable);
    if (!field?.source.item) return undefined;
    const validation = field.row.validation;
    return (field.node && NUMBER_TYPES.has(field.node.type)) || /^(integer|number)/.test(validation)
      ? ('number' as const)
      : true;
  };
  const translated = translateRedcapLogic(logic, known);
  if (!translated.ok) throw new ApiRefusal(400, `参数 filterLogic 无法执行：${translated.reason}`);
  try {
    return {
      compiled: compileExpression(translated.expression),
      today: todayString(now, timeZone),
      now: nowString(now, timeZone),
    };
  } catch (err) {
    if (err instanceof ExpressionError) throw new ApiRefusal(400, `参数 filterLogic 无法执行：${err.message}`);
    throw err;
  }
}

/** A value as filterLogic reads it: a checkbox as its list of codes (for [field(code)]), else as stored. */
function filterValue(field: Field, value: unknown): unknown {
  return field.codes ? readChoiceList(value) : value;
}

type Row = Record<string, string>;

/** Export records (flat): one row per patient and event, one per repeating form record and list-group row. */
export async function exportRecords(ctx: AppContext, project: Project, selected: Selection, query: RecordQuery) {
  const columns = columnsOf(project, selected);
  const subjectRows = await ctx.db
    .select({ code: subjects.identificationCode, recordId: subjectRecords.id })
    .from(subjects)
    .innerJoin(subjectRecords, and(eq(subjectRecords.subjectId, subjects.id), isNull(subjectRecords.deletedAt)))
    .where(
      and(
        eq(subjects.studyId, project.studyId),
        isNull(subjects.deletedAt),
        // Records of other sites are left out, as REDCap leaves out another data access group's records.
        inCallerSites(project, subjects.deptId),
        query.records.length > 0 ? inArray(subjects.identificationCode, query.records) : undefined,
      ),
    )
    .orderBy(asc(subjects.id));
  const crfIds = [...new Set(project.instruments.map((i) => i.crfId))];
  const data =
    subjectRows.length > 0 && crfIds.length > 0
      ? await ctx.db
          .select()
          .from(crfDataRecords)
          .where(
            and(
              eq(crfDataRecords.studyId, project.studyId),
              inArray(crfDataRecords.crfId, crfIds),
              isNull(crfDataRecords.deletedAt),
              inArray(
                crfDataRecords.subjectRecordId,
                subjectRows.map((s) => s.recordId),
              ),
            ),
          )
          .orderBy(asc(crfDataRecords.id))
      : [];
  const fieldsOf = (instrument: Instrument) =>
    project.fields.filter((f) => f.instrument === instrument && selected.has(f) && f.source.item !== null);
  const put = (row: Row, instrument: Instrument, values: Record<string, unknown>) => {
    for (const f of fieldsOf(instrument)) {
      const value = values[f.source.item!];
      if (f.codes) {
        const chosen = new Set(readChoiceList(value));
        for (const c of f.codes) {
          const on = chosen.has(c.code);
          row[c.column] = query.label ? (on ? 'Checked' : 'Unchecked') : on ? '1' : '0';
        }
      } else row[f.source.variable] = valueText(f, value, query.label);
    }
  };
  const wanted = (instrument: Instrument) => fieldsOf(instrument).length > 0;
  const status = (state: number) =>
    state === FORM_STATE.submitted ? (query.label ? 'Complete' : '2') : query.label ? 'Incomplete' : '0';
  const out: Row[] = [];
  let kept = 0;
  for (const subject of subjectRows) {
    const mine = data.filter((d) => d.subjectRecordId === subject.recordId);
    // What filterLogic reads: the patient's single forms (each field has one event here) and, on a
    // repeating row, that instance's own values.
    const scopes = new Map<Row, Record<string, unknown>>();
    const base: Record<string, unknown> = { [RECORD_ID]: subject.code };
    if (query.filter) {
      for (const f of project.fields) {
        if (!f.source.item || f.instrument.rows || f.instrument.repeating) continue;
        const record = mine.find((d) => d.crfId === f.instrument.crfId);
        if (record) base[f.row.variable] = filterValue(f, record.values[f.source.item]);
      }
    }
    const scoped = (instrument: Instrument, values: Record<string, unknown>) => {
      const scope = { ...base };
      for (const f of project.fields) {
        if (f.instrument === instrument && f.source.item) scope[f.row.variable] = filterValue(f, values[f.source.item]);
      }
      return scope;
    };
    const blank = (): Row => {
      const row: Row = Object.fromEntries(columns.map((c) => [c, '']));
      row[RECORD_ID] = subject.code;
      return row;
    };
    const eventRows = new Map<string, Row>();
    const repeatRows: Row[] = [];
    const chosen = (record: { id: number }) => !query.recordIds || query.recordIds.has(record.id);
    for (const instrument of project.instruments) {
      if (!wanted(instrument)) continue;
      const records = mine.filter((d) => d.crfId === instrument.crfId);
      const event = instrument.event ?? '';
      if (instrument.rows) {
        const parent = records[0] && chosen(records[0]) ? records[0] : undefined;
        const list = parent?.values[instrument.rows];
        const rows = Array.isArray(list) ? (list as Array<Record<string, unknown>>) : [];
        rows.forEach((values, i) => {
          const row = blank();
          if (project.longitudinal) row[EVENT] = event;
          row[REPEAT_INSTRUMENT] = instrument.form;
          row[REPEAT_INSTANCE] = String(i + 1);
          put(row, instrument, values ?? {});
          if (query.filter) scopes.set(row, scoped(instrument, values ?? {}));
          repeatRows.push(row);
        });
      } else if (instrument.repeating) {
        records.forEach((record, i) => {
          if (!chosen(record)) return;
          const row = blank();
          if (project.longitudinal) row[EVENT] = event;
          row[REPEAT_INSTRUMENT] = instrument.form;
          row[REPEAT_INSTANCE] = String(i + 1);
          put(row, instrument, record.values);
          if (columns.includes(completeColumn(instrument.form))) {
            row[completeColumn(instrument.form)] = status(record.state);
          }
          if (query.filter) scopes.set(row, scoped(instrument, record.values));
          repeatRows.push(row);
        });
      } else if (records[0] && chosen(records[0])) {
        let row = eventRows.get(event);
        if (!row) {
          row = blank();
          if (project.longitudinal) row[EVENT] = event;
          eventRows.set(event, row);
        }
        put(row, instrument, records[0].values);
        if (columns.includes(completeColumn(instrument.form))) {
          row[completeColumn(instrument.form)] = status(records[0].state);
        }
      }
    }
    const ordered = project.longitudinal
      ? project.events.flatMap((e) => [
          ...(eventRows.has(e.name) ? [eventRows.get(e.name)!] : []),
          ...repeatRows.filter((r) => r[EVENT] === e.name),
        ])
      : [...eventRows.values(), ...repeatRows];
    // A patient with nothing entered yet still exists as a record.
    const all = ordered.length > 0 ? ordered : [blank()];
    const filter = query.filter;
    const rows = filter
      ? all.filter((row) =>
          truthy(
            filter.compiled.evaluate(recordEnv(scopes.get(row) ?? base, { today: filter.today, now: filter.now })),
          ),
        )
      : all;
    if (rows.length > 0) kept += 1;
    out.push(...rows);
  }
  return { columns, rows: out, records: kept };
}

/** The EAV shape: one row per non-blank value (a checkbox: one per chosen code). */
export function toEav(project: Project, columns: string[], rows: Row[]) {
  const meta = new Set([RECORD_ID, EVENT, REPEAT_INSTRUMENT, REPEAT_INSTANCE]);
  const byColumn = new Map<string, { field: string; code?: string }>();
  for (const f of project.fields) {
    if (f.codes) for (const c of f.codes) byColumn.set(c.column, { field: f.row.variable, code: c.code });
  }
  const out: Row[] = [];
  for (const row of rows) {
    for (const column of columns) {
      if (meta.has(column) || row[column] === '' || row[column] === undefined) continue;
      const box = byColumn.get(column);
      if (box && row[column] !== '1' && row[column] !== 'Checked') continue;
      const item: Row = { record: row[RECORD_ID]! };
      if (project.longitudinal) item[EVENT] = row[EVENT]!;
      if (project.repeating) {
        item[REPEAT_INSTRUMENT] = row[REPEAT_INSTRUMENT]!;
        item[REPEAT_INSTANCE] = row[REPEAT_INSTANCE]!;
      }
      item.field_name = box ? box.field : column;
      item.value = box ? box.code! : row[column]!;
      out.push(item);
    }
  }
  return out;
}

export interface ImportOptions {
  overwrite: boolean;
  /** The caller's reason for changing submitted forms (our addition to REDCap's parameters). */
  reason: string | null;
}

interface Target {
  code: string;
  crfId: number;
  instrument: Instrument;
  /** Repeating form: the instance; list group: the row. */
  instance: number | null;
  rows: string | null;
  set: Map<string, unknown>;
  boxes: Map<string, Map<string, boolean>>;
}

const refuse = (message: string) => new ApiRefusal(400, message);

/**
 * Import records (flat rows, REDCap's shape) through the same save as the form page, all or nothing:
 * every changed form is saved through the one write path (form-write.ts) in one transaction, so the engine validates it, the reason
 * rules for submitted forms hold and each changed value gets its audit row (reason API导入).
 * Unchanged forms are left alone. Answers the number of records (patients) in the data.
 */
export async function importRecords(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  input: Row[],
  options: ImportOptions,
): Promise<number> {
  if (input.length === 0) throw refuse('没有要导入的数据（参数 data 为空）');
  const checkboxColumns = new Map<string, { field: Field; code: string }>();
  for (const f of project.fields) {
    if (f.codes) for (const c of f.codes) checkboxColumns.set(c.column, { field: f, code: c.code });
  }
  const meta = new Set([RECORD_ID, EVENT, REPEAT_INSTRUMENT, REPEAT_INSTANCE]);
  const completes = new Set(project.instruments.map((i) => completeColumn(i.form)));
  const columns = new Set(input.flatMap((r) => Object.keys(r)));
  if (!columns.has(RECORD_ID)) throw refuse(`数据缺少记录标识列 ${RECORD_ID}`);
  const unknown = [...columns].filter(
    (c) => !meta.has(c) && !completes.has(c) && !checkboxColumns.has(c) && !project.byVariable.get(c)?.source.item,
  );
  if (unknown.length > 0) throw refuse(`以下字段在项目中不存在或无权访问：${unknown.join(', ')}`);

  const codes = [...new Set(input.map((r) => String(r[RECORD_ID] ?? '').trim()))];
  if (codes.includes('')) throw refuse(`有数据行的 ${RECORD_ID} 为空`);
  const found = await ctx.db
    .select({ code: subjects.identificationCode, recordId: subjectRecords.id, siteId: subjects.deptId })
    .from(subjects)
    .innerJoin(subjectRecords, and(eq(subjectRecords.subjectId, subjects.id), isNull(subjectRecords.deletedAt)))
    .where(
      and(
        eq(subjects.studyId, project.studyId),
        isNull(subjects.deletedAt),
        inArray(subjects.identificationCode, codes),
      ),
    );
  // Another site's patients are refused by name, nothing written (REDCap's answer to another group's records).
  const otherSites = found.filter((s) => !seesSite(project, s.siteId)).map((s) => s.code);
  if (otherSites.length > 0) {
    throw new ApiRefusal(403, `以下记录（患者编号）不在您的中心范围内：${otherSites.join(', ')}`);
  }
  const recordOf = new Map(found.map((s) => [s.code, s.recordId]));
  const missing = codes.filter((c) => !recordOf.has(c));
  if (missing.length > 0) throw refuse(`以下记录（患者编号）不存在，患者须在平台上入组：${missing.join(', ')}`);

  const targets = new Map<string, Target>();
  const targetOf = (code: string, instrument: Instrument, instance: number | null) => {
    const key = `${code}\u0000${instrument.form}\u0000${instance ?? ''}`;
    let t = targets.get(key);
    if (!t) {
      t = {
        code,
        crfId: instrument.crfId,
        instrument,
        instance,
        rows: instrument.rows,
        set: new Map(),
        boxes: new Map(),
      };
      targets.set(key, t);
    }
    return t;
  };
  const byForm = new Map(project.instruments.map((i) => [i.form, i]));
  input.forEach((row, index) => {
    const line = index + 1;
    const code = String(row[RECORD_ID]).trim();
    const repeatName = String(row[REPEAT_INSTRUMENT] ?? '').trim();
    let repeat: { instrument: Instrument; instance: number } | null = null;
    if (repeatName) {
      const instrument = byForm.get(repeatName);
      if (!instrument || (!instrument.repeating && !instrument.rows)) {
        throw refuse(`第${line}行：${REPEAT_INSTRUMENT} ${repeatName} 不是重复表单`);
      }
      const instance = Number(row[REPEAT_INSTANCE]);
      if (!Number.isInteger(instance) || instance < 1) throw refuse(`第${line}行：${REPEAT_INSTANCE} 应为正整数`);
      repeat = { instrument, instance };
    }
    const event = String(row[EVENT] ?? '').trim();
    if (event && !project.events.some((e) => e.name === event)) throw refuse(`第${line}行：事件 ${event} 不存在`);
    for (const [column, raw] of Object.entries(row)) {
      if (meta.has(column) || completes.has(column)) continue;
      const text = raw === null || raw === undefined ? '' : String(raw);
      const box = checkboxColumns.get(column);
      const field = box ? box.field : project.byVariable.get(column)!;
      const instrument = field.instrument;
      if (repeat ? instrument !== repeat.instrument : instrument.repeating || instrument.rows) {
        if (text === '') continue;
        throw refuse(
          repeat
            ? `第${line}行：字段 ${column} 不属于重复表单 ${repeat.instrument.form}`
            : `第${line}行：字段 ${column} 属于重复表单 ${instrument.form}，请填写 ${REPEAT_INSTRUMENT} 和 ${REPEAT_INSTANCE}`,
        );
      }
      // An addition text box has no node of its own: a plain text.
      const node = field.node;
      if (node?.option.calc) continue;
      const target = targetOf(code, instrument, repeat?.instance ?? null);
      const item = field.source.item!;
      if (box) {
        if (text === '') continue;
        if (text !== '0' && text !== '1') throw refuse(`第${line}行：复选框 ${column} 只能是 0 或 1`);
        const set = target.boxes.get(item) ?? new Map<string, boolean>();
        set.set(box.code, text === '1');
        target.boxes.set(item, set);
        continue;
      }
      if (node && FILE_TYPES.has(node.type)) {
        if (text === '' || text === '[document]') continue;
        throw refuse(`第${line}行：文件字段 ${column} 不能通过 API 导入`);
      }
      if (text === '') {
        if (options.overwrite) target.set.set(item, null);
        continue;
      }
      if (node && (node.type === 'radio' || node.type === 'select')) {
        if (!choicesOf(node.option).some((c) => c.value === text)) {
          throw refuse(`第${line}行：${text} 不是字段 ${column} 的选项代码`);
        }
      }
      if (node?.type === 'slider') {
        const n = Number(text);
        if (!Number.isFinite(n)) throw refuse(`第${line}行：字段 ${column} 应为数字`);
        target.set.set(item, n);
      } else target.set.set(item, text);
    }
  });

  await inTransaction(ctx, async (txCtx) => {
    for (const target of targets.values()) {
      await applyTarget(txCtx, caller, target, recordOf.get(target.code)!, options);
    }
  });
  return codes.length;
}

/** All of an API call's saves in one transaction, whose events commit with it: nothing to wait for before the answer. */
function inTransaction<T>(ctx: AppContext, work: (txCtx: AppContext) => Promise<T>): Promise<T> {
  return ctx.db.transaction(async (tx) => {
    const events = Object.assign(Object.create(ctx.events) as AppContext['events'], {
      delivered: () => Promise.resolve(false),
    });
    return work({ ...ctx, db: tx as unknown as Db, events });
  });
}

async function applyTarget(
  ctx: AppContext,
  caller: ApiCaller,
  target: Target,
  subjectRecordId: number,
  options: ImportOptions,
) {
  const records = await ctx.db
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        eq(crfDataRecords.crfId, target.crfId),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(asc(crfDataRecords.id));
  const where = `记录 ${target.code} 表单 ${target.instrument.form}${target.instance ? ` 实例 ${target.instance}` : ''}`;
  let existing = records[0];
  if (target.instrument.repeating && !target.rows) {
    existing = records[target.instance! - 1];
    if (!existing && target.instance! !== records.length + 1) {
      throw refuse(`${where}：实例编号应连续，下一个新实例为 ${records.length + 1}`);
    }
  }
  const before = existing?.values ?? {};
  const values: Record<string, unknown> = { ...before };
  const patch = (into: Record<string, unknown>) => {
    for (const [item, value] of target.set) {
      if (value === null) delete into[item];
      else into[item] = value;
    }
    for (const [item, codes] of target.boxes) {
      const node = nodesOf(target.instrument.crf).get(item);
      const chosen = new Set(readChoiceList(into[item]));
      for (const [code, on] of codes) {
        if (on) chosen.add(code);
        else chosen.delete(code);
      }
      const list = (node ? choicesOf(node.option).map((c) => c.value) : [...chosen]).filter((c) => chosen.has(c));
      into[item] = node?.type === 'multiSelect' ? list.join(',') : list;
    }
  };
  if (target.rows) {
    const list = Array.isArray(before[target.rows]) ? [...(before[target.rows] as Array<Record<string, unknown>>)] : [];
    const index = target.instance! - 1;
    if (index > list.length) throw refuse(`${where}：行号应连续，下一个新行为 ${list.length + 1}`);
    const row = { ...(list[index] ?? {}) };
    patch(row);
    list[index] = row;
    values[target.rows] = list;
  } else patch(values);
  if (changedItemNames(before, values).length === 0) return;
  await saveThroughApi(ctx, caller, {
    subjectRecordId,
    crfId: target.crfId,
    form: target.instrument.form,
    existing,
    values,
    where,
    reason: options.reason,
  });
}

/**
 * One form changed by an API call, through the one write path (form-write.ts) as the form page's save: its permission, the engine's verdict,
 * an audit row per changed value with reason API导入, and for a submitted form the caller's own reason.
 */
async function saveThroughApi(
  ctx: AppContext,
  caller: ApiCaller,
  change: {
    subjectRecordId: number;
    crfId: number;
    form: string;
    existing: { id: number; version: number; state: number } | undefined;
    values: Record<string, unknown>;
    where: string;
    reason: string | null;
  },
) {
  const { existing, where } = change;
  if (!can(caller.access, change.crfId, 'save')) {
    throw new ApiRefusal(403, `您没有修改表单 ${change.form} 的权限`);
  }
  const submitted = existing?.state === FORM_STATE.submitted;
  // A submitted form changes only with a reason from the person, as on the form page; a fixed text is not one.
  const reason = submitted ? (change.reason ? `${API_IMPORT_REASON}：${change.reason}` : null) : API_IMPORT_REASON;
  try {
    await saveForm(
      ctx,
      { kind: 'staff', user: caller.user, access: caller.access },
      {
        subjectRecordId: change.subjectRecordId,
        crfId: change.crfId,
        crfDataRecordId: existing?.id ?? null,
        version: existing?.version ?? 0,
        values: change.values,
        reason,
      },
    );
  } catch (err) {
    if (err instanceof AppError) {
      if (err.code === 'crf.reason_required') {
        throw refuse(`${where}：表单已提交，修改需要填写修改原因（参数 reason）`);
      }
      const issues = (err.data as { errors?: Array<{ itemName: string; message: string }> } | null)?.errors ?? [];
      const detail = issues.map((i) => `${i.itemName}：${i.message}`).join('；');
      throw refuse(`${where}：${err.message}${detail ? `（${detail}）` : ''}`);
    }
    throw err;
  }
}

/**
 * EAV rows (`record`, `field_name`, `value`, with `redcap_event_name` and `redcap_repeat_*` where the
 * project has them) into the flat rows the import reads: one row per record, event and instance. A
 * checkbox is named by its field with the chosen code as the value (as the EAV export writes it), or by
 * its export column `field___code` with 1 or 0, like a flat column.
 */
export function fromEav(project: Project, input: Row[]): Row[] {
  const rows = new Map<string, Row>();
  input.forEach((item, index) => {
    const line = index + 1;
    const record = String(item.record ?? '').trim();
    const fieldName = String(item.field_name ?? '').trim();
    const value = item.value === null || item.value === undefined ? '' : String(item.value);
    if (!record) throw refuse(`第${line}行：EAV 数据缺少 record`);
    if (!fieldName) throw refuse(`第${line}行：EAV 数据缺少 field_name`);
    const event = String(item[EVENT] ?? '').trim();
    const repeat = String(item[REPEAT_INSTRUMENT] ?? '').trim();
    const instance = repeat ? String(item[REPEAT_INSTANCE] ?? '').trim() : '';
    const key = [record, event, repeat, instance].join('\u0000');
    let row = rows.get(key);
    if (!row) {
      row = { [RECORD_ID]: record };
      if (event) row[EVENT] = event;
      if (repeat) Object.assign(row, { [REPEAT_INSTRUMENT]: repeat, [REPEAT_INSTANCE]: instance });
      rows.set(key, row);
    }
    if (fieldName === RECORD_ID) return;
    const field = project.byVariable.get(fieldName);
    if (field?.codes) {
      if (value === '') return;
      const code = field.codes.find((c) => c.code === value);
      if (!code) throw refuse(`第${line}行：${value} 不是复选框 ${fieldName} 的选项代码`);
      row[code.column] = '1';
      return;
    }
    if (Object.hasOwn(row, fieldName) && row[fieldName] !== value) {
      throw refuse(`第${line}行：记录 ${record} 的字段 ${fieldName} 出现了两个不同的值`);
    }
    row[fieldName] = value;
  });
  return [...rows.values()];
}

/** Where a file lives in REDCap's terms: record, field, and the event and repeat instance when there are any. */
export interface FileAddress {
  record: string;
  field: string;
  event: string;
  instance: string;
}

interface FileSlot {
  field: Field;
  item: string;
  subjectRecordId: number;
  existing: typeof crfDataRecords.$inferSelect | undefined;
  where: string;
}

/**
 * A file field of one record, for the caller: the field must be a visible file item (one file, as REDCap's
 * file field holds one; image and video items hold lists), the record an enrolled patient, the instance one
 * that exists (a new repeat instance only for an import). `mode` is what the caller is about to do.
 */
export async function locateFile(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  address: FileAddress,
  mode: 'export' | 'import' | 'delete',
): Promise<FileSlot> {
  if (!address.record) throw refuse('缺少参数 record');
  if (!address.field) throw refuse('缺少参数 field');
  const field = project.byVariable.get(address.field);
  if (!field?.node || !field.source.item) throw refuse(`字段 ${address.field} 不存在或无权查看`);
  if (!FILE_TYPES.has(field.node.type)) throw refuse(`字段 ${address.field} 不是文件字段`);
  if (field.node.type !== 'fileUpload') {
    throw refuse(`字段 ${address.field} 是图片或视频字段（可含多个文件），API 只能读写单个文件的文件字段`);
  }
  const instrument = field.instrument;
  if (instrument.rows) throw refuse(`字段 ${address.field} 在列表组中，API 不能读写列表组中的文件`);
  if (address.event && address.event !== instrument.event) {
    throw refuse(`字段 ${address.field} 不在事件 ${address.event} 中`);
  }
  if (mode !== 'export' && !can(caller.access, instrument.crfId, 'save')) {
    throw new ApiRefusal(403, `您没有修改表单 ${instrument.form} 的权限`);
  }
  let index = 0;
  if (instrument.repeating) {
    const n = address.instance === '' ? 1 : Number(address.instance);
    if (!Number.isInteger(n) || n < 1 || n > 100_000) throw refuse('参数 repeat_instance 应为正整数');
    index = n - 1;
  }
  const [subject] = await ctx.db
    .select({ recordId: subjectRecords.id, siteId: subjects.deptId })
    .from(subjects)
    .innerJoin(subjectRecords, and(eq(subjectRecords.subjectId, subjects.id), isNull(subjectRecords.deletedAt)))
    .where(
      and(
        eq(subjects.studyId, project.studyId),
        isNull(subjects.deletedAt),
        eq(subjects.identificationCode, address.record),
      ),
    );
  // Another site's record: none to read; a change to it is refused by name, as a record import's is.
  if (!subject || (mode === 'export' && !seesSite(project, subject.siteId))) {
    throw refuse(`记录 ${address.record} 不存在`);
  }
  if (!seesSite(project, subject.siteId)) {
    throw new ApiRefusal(403, `记录 ${address.record} 不在您的中心范围内`);
  }
  const records = await ctx.db
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subject.recordId),
        eq(crfDataRecords.crfId, instrument.crfId),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(asc(crfDataRecords.id));
  const existing = records[index];
  const where = `记录 ${address.record} 字段 ${address.field}${instrument.repeating ? ` 实例 ${index + 1}` : ''}`;
  if (!existing && (mode !== 'import' || index !== records.length)) {
    throw refuse(
      mode === 'import' ? `${where}：实例编号应连续，下一个新实例为 ${records.length + 1}` : `${where}：没有文件`,
    );
  }
  return { field, item: field.source.item, subjectRecordId: subject.recordId, existing, where };
}

/** The stored file a field holds: a key or the download call's address, or an object address (external mode). */
const fileIn = (slot: FileSlot) => storedFileOf(slot.existing?.values[slot.item]);

/** content=file action=export: the file a field of a record holds, with its original name. */
export async function exportFile(ctx: AppContext, caller: ApiCaller, project: Project, address: FileAddress) {
  const slot = await locateFile(ctx, caller, project, address, 'export');
  const ref = fileIn(slot);
  if (!ref) throw refuse(`${slot.where}：没有文件`);
  const file = await openStoredFile(ctx, ref);
  if (file.row.studyId !== project.studyId) {
    file.stream.destroy();
    throw refuse(`${slot.where}：没有文件`);
  }
  return file;
}

type Received = Awaited<ReturnType<typeof receiveFile>>;

/**
 * content=file action=import: an upload already received into the file storage (receiveFile, which
 * decided its type by its bytes) becomes the field's value through the form page's save. If the save is
 * refused, the bytes are removed again; a replaced file stays stored, as the audit trail refers to it.
 */
export async function importFile(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  address: FileAddress,
  upload: { stored: Received; fileName: string },
  reason: string | null,
) {
  try {
    await inTransaction(ctx, async (txCtx) => {
      const slot = await locateFile(txCtx, caller, project, address, 'import');
      await recordFile(txCtx, caller.user, project.studyId, upload.stored, upload.fileName);
      await saveThroughApi(txCtx, caller, {
        subjectRecordId: slot.subjectRecordId,
        crfId: slot.field.instrument.crfId,
        form: slot.field.instrument.form,
        existing: slot.existing,
        values: { ...(slot.existing?.values ?? {}), [slot.item]: upload.stored.fileKey },
        where: slot.where,
        reason,
      });
    });
  } catch (err) {
    await ctx.files.delete(storageKeyOf(upload.stored.fileKey));
    throw err;
  }
}

/** content=file action=delete: the field is emptied through the form page's save (the stored file stays, for the audit trail). */
export async function deleteFile(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  address: FileAddress,
  reason: string | null,
) {
  await inTransaction(ctx, async (txCtx) => {
    const slot = await locateFile(txCtx, caller, project, address, 'delete');
    if (!fileIn(slot) && isEmptyValue(slot.existing?.values[slot.item])) throw refuse(`${slot.where}：没有文件`);
    const values = { ...slot.existing!.values };
    delete values[slot.item];
    await saveThroughApi(txCtx, caller, {
      subjectRecordId: slot.subjectRecordId,
      crfId: slot.field.instrument.crfId,
      form: slot.field.instrument.form,
      existing: slot.existing,
      values,
      where: slot.where,
      reason,
    });
  });
}
