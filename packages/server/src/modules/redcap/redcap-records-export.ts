// content=record action=export: flat rows (and their EAV form), with filterLogic.
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import {
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
  type CrfNode,
} from '@ecrf/core';
import { translateRedcapLogic } from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import { inCallerSites } from '../../shared/patient-site.js';
import { ApiRefusal } from './api-token.service.js';
import {
  completeColumn,
  EVENT,
  FILE_TYPES,
  RECORD_ID,
  recordsOfProject,
  REPEAT_INSTANCE,
  REPEAT_INSTRUMENT,
  withLiveCasebook,
  type Field,
  type Instrument,
  type Project,
  type Row,
  type Selection,
} from './redcap-project.js';

/**
 * The export columns of the selected fields in dictionary order, each form's status after its fields when the
 * form is among `completes` (REDCap writes a status column for every instrument, list groups' included).
 */
function columnsOf(project: Project, selected: Selection, completes: ReadonlySet<string>): string[] {
  const columns = [RECORD_ID];
  if (project.longitudinal) columns.push(EVENT);
  if (project.repeating) columns.push(REPEAT_INSTRUMENT, REPEAT_INSTANCE);
  for (const instrument of project.instruments) {
    for (const f of project.fields) {
      if (f.instrument !== instrument || !selected.has(f) || !f.source.item) continue;
      if (f.codes) columns.push(...f.codes.map((c) => c.column));
      else columns.push(f.row.variable);
    }
    if (completes.has(instrument.form)) columns.push(completeColumn(instrument.form));
  }
  return columns;
}

/** Without a choice, a form's status goes with its fields: the forms of which a field is selected. */
function formsWithFields(project: Project, selected: Selection): Set<string> {
  return new Set(project.fields.filter((f) => selected.has(f) && f.source.item).map((f) => f.instrument.form));
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
  /** The forms whose status (`<form>_complete`) is exported (selectCompletes); default: those with a selected field. */
  completes?: ReadonlySet<string>;
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

/** Export records (flat): one row per patient and event, one per repeating form record and list-group row. */
export async function exportRecords(ctx: AppContext, project: Project, selected: Selection, query: RecordQuery) {
  const completes = query.completes ?? formsWithFields(project, selected);
  const columns = columnsOf(project, selected, completes);
  const subjectRows = await ctx.db
    .select({ code: subjects.identificationCode, recordId: subjectRecords.id })
    .from(subjects)
    .innerJoin(subjectRecords, withLiveCasebook)
    .where(
      recordsOfProject(
        project,
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
  const wanted = (instrument: Instrument) => fieldsOf(instrument).length > 0 || completes.has(instrument.form);
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
          // A list group's rows have no status of their own: theirs is the form's.
          if (completes.has(instrument.form)) row[completeColumn(instrument.form)] = status(parent!.state);
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
          if (completes.has(instrument.form)) row[completeColumn(instrument.form)] = status(record.state);
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
        if (completes.has(instrument.form)) row[completeColumn(instrument.form)] = status(records[0].state);
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
