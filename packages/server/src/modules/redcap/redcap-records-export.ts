// content=record action=export: flat rows (and their EAV form), with filterLogic.
import { and, asc, eq, gte, inArray, isNotNull, isNull, lte } from 'drizzle-orm';
import { choicesOf, FORM_STATE, isEmptyValue, readChoiceList, type CrfNode, type MissingMarks } from '@ecrf/core';
import { redcapValue, toRedcapCode } from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import { auditEvents, crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import { inCallerSites } from '../../shared/patient-site.js';
import { filterHolds, type FilterRow, type RecordFilter } from './redcap-filter.js';
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
  if (node && (node.type === 'radio' || node.type === 'select')) {
    return label ? choiceLabel(node, String(value)) : toRedcapCode(node, String(value));
  }
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value);
  // As the field's validation asks (36 → 36.0 for number_1dp, seconds a datetime_seconds field wants).
  return field.row.type === 'text' ? redcapValue(field.row.validation, text) : text;
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
  /** events[]: only the rows of these events (unique names). */
  events?: ReadonlySet<string>;
  /** dateRangeBegin/End: only these casebooks (subject_records ids), the records changed in the range. */
  casebooks?: ReadonlySet<number>;
  /** exportCheckboxLabel (with `label`): a checked choice as its label, an unchecked one blank, as REDCap writes it. */
  checkboxLabels?: boolean;
  /** The event column as the event's label rather than its unique name; default `label` (EAV: eventName=label). */
  eventLabels?: boolean;
  /** exportBlankForGrayFormStatus: the status of a form of the row's event with no record is blank, not 0. */
  blankForGray?: boolean;
}

interface BuiltRow {
  row: Row;
  at: FilterRow;
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
    .orderBy(asc(subjects.id))
    .then((rows) => (query.casebooks ? rows.filter((s) => query.casebooks!.has(s.recordId)) : rows));
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
  const checkedText = (c: { label: string }) => (query.label ? (query.checkboxLabels ? c.label : 'Checked') : '1');
  const uncheckedText = query.label ? (query.checkboxLabels ? '' : 'Unchecked') : '0';
  // 缺失原因: a marked field holds its code, REDCap's way (redcap-missing.ts); a checkbox's boxes stay unticked.
  const put = (row: Row, instrument: Instrument, values: Record<string, unknown>, marks: MissingMarks = {}) => {
    for (const f of fieldsOf(instrument)) {
      const value = values[f.source.item!];
      const mark = Object.hasOwn(marks, f.source.item!) ? marks[f.source.item!] : undefined;
      if (mark !== undefined && !f.codes) row[f.source.variable] = mark;
      else if (f.codes) {
        const chosen = new Set(readChoiceList(value));
        for (const c of f.codes) row[c.column] = chosen.has(c.code) ? checkedText(c) : uncheckedText;
      } else row[f.source.variable] = valueText(f, value, query.label);
    }
  };
  const wanted = (instrument: Instrument) => fieldsOf(instrument).length > 0 || completes.has(instrument.form);
  const status = (state: number) =>
    state === FORM_STATE.submitted ? (query.label ? 'Complete' : '2') : query.label ? 'Incomplete' : '0';
  const inEvents = (event: string | null) => !query.events || (event !== null && query.events.has(event));
  // REDCap creates a record in its first event: a record with nothing entered yet is a row of that event.
  const firstEvent = project.events[0]?.name ?? null;
  const eventText = new Map(project.events.map((e) => [e.name, (query.eventLabels ?? query.label) ? e.label : e.name]));
  const out: Row[] = [];
  let kept = 0;
  for (const subject of subjectRows) {
    const mine = data.filter((d) => d.subjectRecordId === subject.recordId);
    const blank = (event: string | null, instance: FilterRow['instance'] = null): BuiltRow => {
      const row: Row = Object.fromEntries(columns.map((c) => [c, '']));
      row[RECORD_ID] = subject.code;
      if (project.longitudinal) row[EVENT] = eventText.get(event!) ?? '';
      if (instance) row[REPEAT_INSTRUMENT] = query.label ? instance.instrument.title : instance.instrument.form;
      return { row, at: { event, instance } };
    };
    const eventRows = new Map<string | null, BuiltRow>();
    const repeatRows: BuiltRow[] = [];
    const chosen = (record: { id: number }) => !query.recordIds || query.recordIds.has(record.id);
    const instance = (
      instrument: Instrument,
      values: Record<string, unknown>,
      index: number,
      state: number,
      marks?: MissingMarks,
    ) => {
      const built = blank(instrument.event, { instrument, values });
      built.row[REPEAT_INSTANCE] = String(index + 1);
      put(built.row, instrument, values, marks);
      // A list group's rows have no status of their own: theirs is the form's.
      if (completes.has(instrument.form)) built.row[completeColumn(instrument.form)] = status(state);
      repeatRows.push(built);
    };
    for (const instrument of project.instruments) {
      if (!wanted(instrument) || !inEvents(instrument.event)) continue;
      const records = mine.filter((d) => d.crfId === instrument.crfId);
      if (instrument.rows) {
        const parent = records[0] && chosen(records[0]) ? records[0] : undefined;
        const list = parent?.values[instrument.rows];
        const rows = Array.isArray(list) ? (list as Array<Record<string, unknown>>) : [];
        rows.forEach((values, i) => instance(instrument, values ?? {}, i, parent!.state));
      } else if (instrument.repeating) {
        records.forEach(
          (record, i) => chosen(record) && instance(instrument, record.values, i, record.state, record.missing),
        );
      } else if (records[0] && chosen(records[0])) {
        let built = eventRows.get(instrument.event);
        if (!built) eventRows.set(instrument.event, (built = blank(instrument.event)));
        put(built.row, instrument, records[0].values, records[0].missing);
        if (completes.has(instrument.form)) built.row[completeColumn(instrument.form)] = status(records[0].state);
      }
    }
    const ordered = project.longitudinal
      ? project.events.flatMap((e) => [
          ...(eventRows.has(e.name) ? [eventRows.get(e.name)!] : []),
          ...repeatRows.filter((r) => r.at.event === e.name),
        ])
      : [...eventRows.values(), ...repeatRows];
    // A patient with nothing entered yet still exists as a record.
    if (ordered.length === 0 && inEvents(firstEvent)) ordered.push(blank(firstEvent));
    // REDCap's gray status: a form of the row's event with no record is 0 (Incomplete), or blank when asked.
    for (const { row, at } of ordered) {
      if (at.instance) continue;
      for (const instrument of project.instruments) {
        if (instrument.repeating || instrument.rows || instrument.event !== at.event) continue;
        if (!completes.has(instrument.form) || mine.some((d) => d.crfId === instrument.crfId)) continue;
        row[completeColumn(instrument.form)] = query.blankForGray ? '' : status(FORM_STATE.incomplete);
      }
    }
    const filter = query.filter;
    const single = (field: Field) =>
      mine.find((d) => d.crfId === field.instrument.crfId)?.values[field.source.item!] ?? undefined;
    const rows = filter ? ordered.filter((b) => filterHolds(project, filter, subject.code, b.at, single)) : ordered;
    if (rows.length > 0) kept += 1;
    out.push(...rows.map((b) => b.row));
  }
  return { columns, rows: out, records: kept };
}

/** Audit actions that change a record's data (REDCap counts its data inserts and updates). */
const DATA_CHANGES = ['crf.create', 'item.update', 'crf.submit', 'crf.delete'];

/**
 * The casebooks (records) created or changed in a range, as REDCap reads its log for dateRangeBegin/End: any form
 * record of theirs created, changed, submitted or deleted from `begin` (null: always) to `end` (null: now).
 */
export async function casebooksChangedBetween(
  ctx: AppContext,
  project: Project,
  begin: Date | null,
  end: Date | null,
): Promise<Set<number>> {
  const rows = await ctx.db
    .selectDistinct({ casebook: auditEvents.subjectRecordId })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.studyId, project.studyId),
        inArray(auditEvents.action, DATA_CHANGES),
        isNotNull(auditEvents.crfDataRecordId),
        begin ? gte(auditEvents.createdAt, begin) : undefined,
        end ? lte(auditEvents.createdAt, end) : undefined,
      ),
    );
  return new Set(rows.flatMap((r) => (r.casebook === null ? [] : [r.casebook])));
}

/** The EAV shape: one row per non-blank value (a checkbox: one per chosen code). */
export function toEav(project: Project, columns: string[], rows: Row[]) {
  const meta = new Set([RECORD_ID, EVENT, REPEAT_INSTRUMENT, REPEAT_INSTANCE]);
  const byColumn = new Map<string, { field: string; code: string }>();
  for (const f of project.fields) {
    if (f.codes) for (const c of f.codes) byColumn.set(c.column, { field: f.row.variable, code: c.redcap });
  }
  const out: Row[] = [];
  for (const row of rows) {
    for (const column of columns) {
      if (meta.has(column) || row[column] === '' || row[column] === undefined) continue;
      const box = byColumn.get(column);
      // A checked box is 1, Checked, or its choice's label (exportCheckboxLabel): anything but the unchecked texts.
      if (box && (row[column] === '0' || row[column] === 'Unchecked')) continue;
      const item: Row = { record: row[RECORD_ID]! };
      if (project.longitudinal) item[EVENT] = row[EVENT]!;
      if (project.repeating) {
        item[REPEAT_INSTRUMENT] = row[REPEAT_INSTRUMENT]!;
        item[REPEAT_INSTANCE] = row[REPEAT_INSTANCE]!;
      }
      item.field_name = box ? box.field : column;
      item.value = box ? box.code : row[column]!;
      out.push(item);
    }
  }
  return out;
}
