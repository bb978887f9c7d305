// The REDCap API's view of a study, shared by every content type: the project (instruments, fields, events) one
// caller sees, the field selection of fields[]/forms[], and the names REDCap's columns go by.
import { and, asc, eq, isNull, type SQL } from 'drizzle-orm';
import type { CrfDefinition, CrfNode, MissingCode } from '@ecrf/core';
import {
  exportRedcapDictionary,
  redcapCheckboxColumn,
  redcapChoiceCodes,
  redcapEventsOf,
  type RedcapFieldSource,
  type RedcapFormSource,
} from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import { crfStageCrfs, crfStages, crfs, studies, subjectRecords, subjects } from '../../db/schema/index.js';
import { can } from '../crf-data/crf-data.service.js';
import { definitionOf, nodesOf } from '../study/crf-definitions.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { ApiRefusal, type ApiCaller } from './api-token.service.js';

/** Our patient code is REDCap's record ID: the first field of every exported dictionary. */
export const RECORD_ID = 'record_id';
/** The REDCap version we answer `content=version` with: the API generation whose parameters we follow. */
export const REDCAP_VERSION = '14.0.0';
export const EVENT = 'redcap_event_name';
export const REPEAT_INSTRUMENT = 'redcap_repeat_instrument';
export const REPEAT_INSTANCE = 'redcap_repeat_instance';
export const FILE_TYPES = new Set<CrfNode['type']>(['fileUpload', 'imageUpload', 'videoUpload']);

/** A REDCap record is a patient with their casebook: the join of `subjects` to `subject_records`, live ones only. */
export const withLiveCasebook = and(eq(subjectRecords.subjectId, subjects.id), isNull(subjectRecords.deletedAt));

/** The condition on that join naming the project's live records, narrowed by the conditions given. */
export function recordsOfProject(project: { studyId: number }, ...narrowedBy: (SQL | undefined)[]) {
  return and(eq(subjects.studyId, project.studyId), isNull(subjects.deletedAt), ...narrowedBy);
}

type DictRow = ReturnType<typeof exportRedcapDictionary>['rows'][number];

export interface Instrument extends RedcapFormSource {
  crfId: number;
  title: string;
  /** The CRF repeats (repeat 0 in a stage): its records are instances. */
  repeating: boolean;
  event: string | null;
  crf: CrfDefinition;
}

export interface Field {
  row: DictRow;
  source: RedcapFieldSource;
  instrument: Instrument;
  node: CrfNode | undefined;
  /** Checkbox (and multi-select) fields export one column per choice. */
  codes: Array<{ code: string; redcap: string; column: string; label: string }> | null;
}

export interface Project {
  studyId: number;
  title: string;
  createdAt: Date;
  longitudinal: boolean;
  repeating: boolean;
  /** The stages as events (the unscheduled one, stageId null, when a form is in no stage); none: not longitudinal. */
  events: Array<{ name: string; label: string; stageId: number | null }>;
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
  /** The study's missing-data codes (缺失原因): REDCap's missing_data_codes, a code in a field's place. */
  missingCodes: MissingCode[];
}

/**
 * REDCap's checkbox export column: `<field>___<code>` for the code REDCap has for ours (redcapChoiceCodes), as REDCap
 * writes it (`-` as `_`, lower case, other characters dropped).
 */
export const checkboxColumn = redcapCheckboxColumn;

/**
 * The study as a REDCap project for one caller: the dictionary of every CRF's current version (written for
 * all forms, so variable names never depend on who asks), cut to the forms the caller may view and, without
 * the identifier permission, without items marked as identifiers.
 */
export async function loadProject(
  ctx: AppContext,
  caller: ApiCaller,
  /** Definitions to use instead of some CRFs' current versions (the data export's, with its removed items). */
  definitionFor?: ReadonlyMap<number, CrfDefinition>,
): Promise<Project> {
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
  const definitions = await Promise.all(
    forms.map((f) => definitionFor?.get(f.id) ?? definitionOf(ctx.db, f.id, f.currentVersion)),
  );
  const dictionary = exportRedcapDictionary(definitions, { recordId: RECORD_ID });

  // The stages as REDCap's events (one arm), named as REDCap names them; a form's data is in one event.
  const plan = redcapEventsOf(
    stages,
    links,
    forms.map((f) => f.id),
  );
  const longitudinal = plan.events.length > 0;
  const eventOf = (crfId: number) => plan.eventOfForm(crfId)?.uniqueName ?? null;
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
        ? redcapChoiceCodes(node).map((c) => ({
            code: c.code,
            redcap: c.redcap,
            column: checkboxColumn(row.variable, c.redcap),
            label: c.text,
          }))
        : null;
    fields.push({ row, source, instrument, node, codes });
  }
  return {
    studyId: access.studyId,
    missingCodes: study.missingCodes,
    title: study.studyName,
    createdAt: study.createdAt,
    longitudinal,
    repeating: instruments.some((i) => i.repeating || i.rows !== null),
    events: plan.events.map((e) => ({ name: e.uniqueName, label: e.label, stageId: e.stageId })),
    instruments,
    fields,
    byVariable: new Map(fields.map((f) => [f.row.variable, f])),
    siteIds: access.siteIds,
  };
}

export type Selection = Set<Field>;

export const completeColumn = (form: string) => `${form}_complete`;

/** The instrument whose status a `<form>_complete` name is, if it is one. */
function statusOf(project: Project, name: string) {
  return project.instruments.find((i) => completeColumn(i.form) === name);
}

/**
 * fields[] and forms[] together (either names a field in), as REDCap reads them; unknown names are refused. A
 * form's status `<form>_complete` is a field to REDCap (PyCap asks for every one): accepted, and exported when
 * asked (selectCompletes).
 */
export function selectFields(project: Project, fieldNames: string[], formNames: string[]): Selection {
  const badFields = fieldNames.filter((n) => !project.byVariable.has(n) && !statusOf(project, n));
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

/**
 * The forms whose status column a records export writes, as REDCap decides it: all of them without fields[] and
 * forms[], else those of forms[] and those whose `<form>_complete` is in fields[] (a field of a form alone does
 * not bring its status).
 */
export function selectCompletes(project: Project, fieldNames: string[], formNames: string[]): Set<string> {
  if (fieldNames.length === 0 && formNames.length === 0) return new Set(project.instruments.map((i) => i.form));
  return new Set(
    project.instruments
      .filter((i) => formNames.includes(i.form) || fieldNames.includes(completeColumn(i.form)))
      .map((i) => i.form),
  );
}

/** A record row (flat: one column per field) or an EAV item, as the API reads and writes it. */
export type Row = Record<string, string>;

/** A request the API cannot carry out as asked: REDCap's 400 with the reason. */
export const refuse = (message: string) => new ApiRefusal(400, message);
