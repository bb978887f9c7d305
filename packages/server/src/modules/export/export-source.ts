import crypto from 'node:crypto';
import { and, asc, eq, gt, inArray, isNull, ne, sql } from 'drizzle-orm';
import {
  exportVariables,
  identifierItemsOf,
  isIdentifierKey,
  isRowType,
  isUploadItem,
  shiftDate,
  uniqueNames,
  valuesWithCodes,
  valuesWithMarks,
  type MissingCode,
  valuesWithRanges,
  withCodingVariables,
  withMissingVariables,
  withRangeVariables,
  type CodingKind,
  type CrfDefinition,
  type CrfNode,
  type ExportOptions,
  type ExportState,
  type ExportVariable,
  type IdentifierItems,
  type SearchConditions,
  withoutIdentifierItems,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { fileKeysOf, fileNamesOf } from '../audit/audit-text.service.js';
import {
  codedItems,
  crfDataRecords,
  doubts,
  signatures,
  studies,
  studyDiseases,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { inCallerSites } from '../../shared/patient-site.js';
import { canViewCrf, type StudyAccess } from '../../shared/study-access.js';
import { studyFormLayout } from '../../shared/study-forms.js';
import { definitionsOf, versionKey } from '../study/crf-definitions.js';
import { getMissingCodes } from '../study/missing-codes.service.js';
import { optionOfItem, rangedItemsOf } from './export-lab-ranges.js';
import { removedItemsWithValues, withRemovedItems } from './export-removed-items.js';

/** Patients read per statement: a batch and its records are all the export holds in memory at once. */
export const PATIENT_BATCH = 500;
/** The form-level SDV mark kept in a record's `sdv` (crf-data.service.ts). */
const FORM_SDV_KEY = '__form__';
/** Queries: 1 is closed (doubt.service.ts). */
const DOUBT_CLOSED = 1;
/** An upload whose stored file is not found: a file is never written as its storage key. */
export const UNKNOWN_FILE_NAME = '（未知文件）';

export interface PlanStage {
  stageId: number;
  name: string;
}

export interface PlanForm {
  crfId: number;
  title: string;
  /**
   * The current version's definition: variables, titles and choices come from it. After its own items, the items
   * older versions had that still hold a value in an exported record (export-removed-items.ts: marked （已删除）).
   */
  definition: CrfDefinition;
  /** The names of those removed items (none: the definition is the current version's as it is). */
  removedItems: string[];
  /**
   * Unique across the export (a name used by two forms is numbered in the later one; the removed items' after every
   * form's current ones, so a current variable's name never depends on them).
   */
  variables: ExportVariable[];
  /** The form's first stage in the study's order: the stage column of its rows (records carry no stage). */
  stage: PlanStage | null;
  /** The form repeats (repeat 0 in a stage): its records are instances 1, 2, … */
  repeating: boolean;
  /**
   * Its identifier items (current version): left out, columns and values, unless identifiers were asked for
   * (which needs 查看患者身份信息), as the patient's own identifiers and the REDCap file's identifier fields are.
   */
  identifiers: IdentifierItems;
}

/** Patient columns: always the code and the clinical fields; identifiers only when asked and allowed. */
export interface PatientColumn {
  name: string;
  title: string;
  identifier: boolean;
  date: boolean;
}

export const PATIENT_COLUMNS: readonly PatientColumn[] = [
  { name: 'subject_code', title: '编号', identifier: false, date: false },
  { name: 'subject_name', title: '姓名', identifier: true, date: false },
  { name: 'birth', title: '出生日期', identifier: true, date: true },
  { name: 'mobile', title: '手机号', identifier: true, date: false },
  { name: 'id_number', title: '身份证号', identifier: true, date: false },
  { name: 'gender', title: '性别', identifier: false, date: false },
  { name: 'disease', title: '病种', identifier: false, date: false },
  { name: 'subject_state', title: '患者状态', identifier: false, date: false },
  { name: 'enrolled', title: '入组日期', identifier: false, date: true },
];
export const GENDER_LABELS: Record<string, string> = { '1': '男', '0': '女' };
export const SUBJECT_STATE_LABELS: Record<string, string> = { '0': '在组', '1': '完成', '2': '退出' };
export const RECORD_STATE_LABELS: Record<string, string> = { '1': '已保存', '2': '已提交' };

export interface ExportPlan {
  studyId: number;
  forms: PlanForm[];
  stages: PlanStage[];
  patientColumns: PatientColumn[];
  /** disease code → name, for labels. */
  diseases: Map<string, string>;
  options: ExportOptions;
  timeZone: string;
  /**
   * The sites whose patients the export holds (分中心): the caller's when the job runs, `null` for every site. Every
   * format reads its patients through countPatients and patientBatches, which keep to them.
   */
  siteIds: number[] | null;
  /**
   * The study is in 测试: every patient is exported (all are test data). In production the test patients
   * (subjects.test: entered against drafts) are never exported.
   */
  test: boolean;
  /** The study's missing-data codes (缺失原因): ODM lists them as the CodeList of its items' Flags. */
  missingCodes: MissingCode[];
}

/**
 * The items some live record of the study marks with a missing-data code, per form: they get a `<item>_missing`
 * column. The study's, not the scope's, so that every export of the study has the same columns.
 */
async function markedItems(ctx: AppContext, studyId: number): Promise<Map<number, Set<string>>> {
  const rows = await ctx.db
    .selectDistinct({ crfId: crfDataRecords.crfId, item: sql<string>`jsonb_object_keys(${crfDataRecords.missing})` })
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.studyId, studyId),
        isNull(crfDataRecords.deletedAt),
        sql`${crfDataRecords.missing} <> '{}'::jsonb`,
      ),
    );
  const out = new Map<number, Set<string>>();
  for (const r of rows) out.set(r.crfId, (out.get(r.crfId) ?? new Set()).add(r.item));
  return out;
}

/** The study's coded items (医学编码) per form: item → dictionary kind. */
async function codedItemsByForm(ctx: AppContext, studyId: number): Promise<Map<number, Map<string, CodingKind>>> {
  const [study] = await ctx.db
    .select({ codedItems: studies.codedItems })
    .from(studies)
    .where(eq(studies.studyId, studyId));
  const out = new Map<number, Map<string, CodingKind>>();
  for (const c of study?.codedItems ?? []) out.set(c.crfId, (out.get(c.crfId) ?? new Map()).set(c.itemName, c.kind));
  return out;
}

/** The codes of a batch's records, one statement: record id → its coded items' codings. */
async function codingsOf(ctx: AppContext, studyId: number, recordIds: number[]) {
  const out = new Map<number, Array<{ itemName: string; coding: Record<string, unknown> | null }>>();
  if (recordIds.length === 0) return out;
  const rows = await ctx.db
    .select({ recordId: codedItems.crfDataRecordId, itemName: codedItems.itemName, coding: codedItems.coding })
    .from(codedItems)
    .where(and(eq(codedItems.studyId, studyId), inArray(codedItems.crfDataRecordId, recordIds)));
  for (const r of rows) out.set(r.recordId, [...(out.get(r.recordId) ?? []), r]);
  return out;
}

/**
 * What an export holds for this caller: the chosen forms the caller may view (the CRF page's rule; a form not
 * viewable is left out, never exported), narrowed to the chosen stages, with variables unique across forms.
 */
export async function exportPlan(
  ctx: AppContext,
  access: StudyAccess,
  options: ExportOptions,
  test: boolean,
  scope: ResolvedScope = { kind: 'study' },
): Promise<ExportPlan> {
  const studyId = access.studyId;
  const { forms, stages, links } = await studyFormLayout(ctx.db, studyId);
  const chosen = forms.filter(
    (f) =>
      canViewCrf(access, f.id) &&
      (options.crfIds.length === 0 || options.crfIds.includes(f.id)) &&
      (options.stageIds.length === 0 || links.some((l) => l.crfId === f.id && options.stageIds.includes(l.stageId))),
  );
  const definitions = await definitionsOf(
    ctx.db,
    chosen.map((f) => ({ crfId: f.id, version: f.version })),
  );
  const current = chosen.flatMap((f) => {
    const definition = definitions.get(versionKey(f.id, f.version));
    return definition ? [{ f, definition }] : [];
  });
  const removed = await removedItemsWithValues(ctx, {
    studyId,
    forms: current.map(({ f, definition }) => ({ crfId: f.id, version: f.version, definition })),
    patients: patientsOfPlan({ studyId, siteIds: access.siteIds, test }),
    subjectRecordIds: scope.kind === 'list' ? scope.subjectRecordIds : null,
    states: options.states,
    identifiers: options.identifiers,
  });
  const marked = await markedItems(ctx, studyId);
  const coded = await codedItemsByForm(ctx, studyId);
  const rangedByForm = await rangedItemsOf(ctx, studyId);
  const planForms: PlanForm[] = [];
  // Per form: how many of its variables are the current version's (the removed items' come after them).
  const own: number[] = [];
  for (const { f, definition: currentDefinition } of current) {
    const removedItems = removed.get(f.id) ?? [];
    const definition = withRemovedItems(currentDefinition, removedItems);
    const mine = links.filter((l) => l.crfId === f.id);
    const identifiers = identifierItemsOf(definition);
    const kept = (v: ExportVariable) => options.identifiers || !isIdentifierKey(identifiers, v.item);
    // 缺失原因: `<item>_missing` beside each item some record of the study marks (missing-codes.ts).
    const marks = marked.get(f.id) ?? new Set<string>();
    // 医学编码: the coded terms beside each coded item (coding-export.ts).
    const codes = coded.get(f.id) ?? new Map<string, CodingKind>();
    // 参考范围: `<item>_lower`/`<item>_upper` beside items some record was judged by a site range for.
    const ranged = rangedByForm.get(f.id) ?? new Set<string>();
    const variablesOf = (d: CrfDefinition) =>
      withCodingVariables(withMissingVariables(withRangeVariables(exportVariables(d), ranged), marks), codes);
    const variables = variablesOf(definition);
    own.push(variablesOf(currentDefinition).filter(kept).length);
    planForms.push({
      crfId: f.id,
      title: f.title,
      definition,
      removedItems: removedItems.map((n) => n.name),
      variables: variables.filter(kept),
      stage: stages.find((s) => mine.some((l) => l.stageId === s.stageId)) ?? null,
      repeating: mine.some((l) => l.repeat !== 1),
      identifiers,
    });
  }
  const patientColumns = PATIENT_COLUMNS.filter((c) => options.identifiers || !c.identifier);
  // One name space for the wide layouts: patient columns, the row keys, then every form's variables (the current
  // versions' first, then the removed items').
  const reserved = [...patientColumns.map((c) => c.name), 'stage', 'crf', 'instance', 'record_state'];
  const ordered = [
    ...planForms.flatMap((f, k) => f.variables.slice(0, own[k])),
    ...planForms.flatMap((f, k) => f.variables.slice(own[k])),
  ];
  const names = uniqueNames([...reserved, ...ordered.map((v) => v.name)]).slice(reserved.length);
  const nameOf = new Map(ordered.map((v, i) => [v, names[i]!]));
  for (const form of planForms) form.variables = form.variables.map((v) => ({ ...v, name: nameOf.get(v)! }));
  const diseases = await ctx.db
    .select({ code: studyDiseases.diseaseCode, name: studyDiseases.diseaseName })
    .from(studyDiseases)
    .where(eq(studyDiseases.studyId, studyId));
  return {
    studyId,
    forms: planForms,
    stages,
    patientColumns,
    diseases: new Map(diseases.map((d) => [d.code, d.name])),
    options,
    timeZone: access.timeZone,
    siteIds: access.siteIds,
    test,
    missingCodes: await getMissingCodes(ctx, studyId),
  };
}

export interface ExportPatient {
  subjectRecordId: number;
  code: string;
  /** Patient column values by PatientColumn.name (dates shifted, identifiers only when in the plan). */
  fields: Record<string, string | null>;
  /** The date offset of this patient in this export (null: not shifted). Never written to a file. */
  shiftDays: number | null;
}

export interface ExportRecord {
  id: number;
  subjectRecordId: number;
  crfId: number;
  /** 1, 2, … among the patient's live records of the form, in the order they were created. */
  instance: number;
  state: number;
  values: Record<string, unknown>;
  /** The original names of the files its uploads refer to, by key (valueText's fileNames; shared by the batch). */
  fileNames: ReadonlyMap<string, string>;
  /** 参考范围: the range each item was judged by at the last save, as stored (the long CSV's range columns). */
  labRanges?: Readonly<Record<string, unknown>>;
}

export interface PatientBatch {
  patients: ExportPatient[];
  /** The batch's exported records, by patient then form then creation. */
  records: ExportRecord[];
}

/**
 * Which patients: the whole study (v3); the patients of a search, by its conditions (v2, resolved by the
 * retrieval's own search when the job runs); or a fixed list of subject record ids (v2).
 */
export type PatientScope =
  { kind: 'study' } | { kind: 'search'; conditions: SearchConditions } | { kind: 'list'; subjectRecordIds: number[] };
/** A scope ready to read: a search resolved to its patients. */
export type ResolvedScope = Exclude<PatientScope, { kind: 'search' }>;

/**
 * A per-export, per-patient date offset: HMAC of the patient's id under a key drawn for this export and never
 * kept, so the offsets are consistent within the file and unrelated between exports.
 */
export function dateShifter(maxDays: number | null): (subjectRecordId: number) => number | null {
  if (maxDays === null) return () => null;
  const key = crypto.randomBytes(32);
  return (id) => {
    const n = crypto.createHmac('sha256', key).update(String(id)).digest().readUInt32BE(0);
    const magnitude = 1 + (n % maxDays);
    return n & 0x80000000 ? -magnitude : magnitude;
  };
}

/**
 * The patients an export holds, on casebooks joined with their patients: live, of its study, at its sites; in a
 * production study never its test patients.
 */
function patientsOfPlan(plan: Pick<ExportPlan, 'studyId' | 'siteIds' | 'test'>) {
  return and(
    eq(subjectRecords.studyId, plan.studyId),
    isNull(subjectRecords.deletedAt),
    isNull(subjects.deletedAt),
    inCallerSites(plan, subjects.deptId),
    plan.test ? undefined : eq(subjects.test, false),
  );
}

export async function countPatients(ctx: AppContext, plan: ExportPlan, scope: ResolvedScope): Promise<number> {
  const [row] = await ctx.db
    .select({ n: sql<number>`count(*)::int` })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(
      and(patientsOfPlan(plan), scope.kind === 'list' ? inArray(subjectRecords.id, scope.subjectRecordIds) : undefined),
    );
  return Number(row?.n ?? 0);
}

/**
 * The patients in key order (subject record id), PATIENT_BATCH at a time, each batch with its records of the
 * given forms that are in one of the chosen states. Keyset reads: memory is one batch whatever the study size.
 */
export async function* patientBatches(
  ctx: AppContext,
  plan: ExportPlan,
  scope: ResolvedScope,
  crfIds: readonly number[],
  shift: (subjectRecordId: number) => number | null,
  decrypt: (stored: string) => string,
): AsyncGenerator<PatientBatch> {
  const states = new Set<ExportState>(plan.options.states);
  // A record's identifiers: those of the plan's (current) version and of the version it was entered with.
  const formById = new Map(plan.forms.map((f) => [f.crfId, f]));
  const identifiersOf = async (r: { crfId: number; crfVersion: number }) => {
    const form = formById.get(r.crfId);
    const own = await definitionsOf(ctx.db, [{ crfId: r.crfId, version: r.crfVersion }]);
    return identifierItemsOf(...[form?.definition, own.get(versionKey(r.crfId, r.crfVersion))].flatMap((d) => d ?? []));
  };
  const listed = scope.kind === 'list' ? [...new Set(scope.subjectRecordIds)].sort((a, b) => a - b) : null;
  interface Cursor {
    after: number;
    listAt: number;
  }
  const read = async (cursor: Cursor): Promise<{ batch: PatientBatch; next: Cursor | null } | null> => {
    let ids: number[] | null = null;
    if (listed) {
      ids = listed.slice(cursor.listAt, cursor.listAt + PATIENT_BATCH);
      if (ids.length === 0) return null;
    }
    const rows = await ctx.db
      .select({
        subjectRecordId: subjectRecords.id,
        state: subjectRecords.state,
        code: subjects.identificationCode,
        name: subjects.subjectName,
        gender: subjects.gender,
        birth: subjects.birth,
        mobile: subjects.mobile,
        idNumberEnc: subjects.idNumberEnc,
        diseaseCode: subjects.diseaseCode,
        createdAt: subjects.createdAt,
      })
      .from(subjectRecords)
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(and(patientsOfPlan(plan), ids ? inArray(subjectRecords.id, ids) : gt(subjectRecords.id, cursor.after)))
      .orderBy(asc(subjectRecords.id))
      .limit(PATIENT_BATCH);
    const next: Cursor | null = listed
      ? { after: 0, listAt: cursor.listAt + PATIENT_BATCH }
      : rows.length < PATIENT_BATCH
        ? null
        : { after: rows[rows.length - 1]!.subjectRecordId, listAt: 0 };
    if (rows.length === 0) return listed ? { batch: { patients: [], records: [] }, next } : null;
    const patients = rows.map((r): ExportPatient => {
      const shiftDays = shift(r.subjectRecordId);
      const enrolled = r.createdAt.toLocaleDateString('sv-SE', { timeZone: plan.timeZone });
      const fields: Record<string, string | null> = {
        subject_code: r.code,
        gender: String(r.gender),
        disease: r.diseaseCode,
        subject_state: String(r.state),
        enrolled: shiftDays === null ? enrolled : shiftDate(enrolled, shiftDays),
      };
      if (plan.options.identifiers) {
        fields.subject_name = r.name;
        fields.birth = r.birth;
        fields.mobile = r.mobile;
        fields.id_number = r.idNumberEnc ? decrypt(r.idNumberEnc) : null;
      }
      return { subjectRecordId: r.subjectRecordId, code: r.code, fields, shiftDays };
    });
    const patientIds = patients.map((p) => p.subjectRecordId);
    const records: ExportRecord[] = [];
    if (crfIds.length > 0) {
      const found = await ctx.db
        .select({
          id: crfDataRecords.id,
          subjectRecordId: crfDataRecords.subjectRecordId,
          crfId: crfDataRecords.crfId,
          state: crfDataRecords.state,
          values: crfDataRecords.values,
          missing: crfDataRecords.missing,
          labRanges: crfDataRecords.labRanges,
          crfVersion: crfDataRecords.crfVersion,
          formSdv: sql<boolean>`(${crfDataRecords.sdv} -> ${FORM_SDV_KEY}::text) is not null`,
        })
        .from(crfDataRecords)
        .where(
          and(
            eq(crfDataRecords.studyId, plan.studyId),
            inArray(crfDataRecords.subjectRecordId, patientIds),
            inArray(crfDataRecords.crfId, [...crfIds]),
            isNull(crfDataRecords.deletedAt),
          ),
        )
        .orderBy(asc(crfDataRecords.subjectRecordId), asc(crfDataRecords.crfId), asc(crfDataRecords.id));
      const signed = states.has('signed') ? await signedPatients(ctx, plan.studyId, patientIds) : new Set<number>();
      const doubted = states.has('doubt') ? await doubtedRecords(ctx, plan.studyId, patientIds) : new Set<number>();
      const codings = await codingsOf(
        ctx,
        plan.studyId,
        found.map((r) => r.id),
      );
      const fileNames = new Map<string, string>();
      let key = '';
      let instance = 0;
      for (const r of found) {
        const k = `${r.subjectRecordId}:${r.crfId}`;
        instance = k === key ? instance + 1 : 1;
        key = k;
        const inState =
          (states.has('saved') && r.state !== 2) ||
          (states.has('submitted') && r.state === 2) ||
          (states.has('sdv') && r.formSdv) ||
          (states.has('signed') && signed.has(r.subjectRecordId)) ||
          (states.has('doubt') && doubted.has(r.id));
        if (!inState) continue;
        records.push({
          id: r.id,
          subjectRecordId: r.subjectRecordId,
          crfId: r.crfId,
          instance,
          state: r.state,
          values: valuesWithRanges(
            valuesWithCodes(
              valuesWithMarks(
                plan.options.identifiers ? r.values : withoutIdentifierItems(await identifiersOf(r), r.values),
                r.missing,
              ),
              codings.get(r.id),
            ),
            r.labRanges,
            optionOfItem(formById.get(r.crfId)?.definition),
          ),
          fileNames,
          labRanges: r.labRanges,
        });
      }
      await nameFiles(ctx, plan, records, fileNames);
    }
    return { batch: { patients, records }, next };
  };
  // The next batch is read while the caller writes this one, so the database and the writer work at once.
  let pending: ReturnType<typeof read> | null = read({ after: 0, listAt: 0 });
  while (pending) {
    const got: Awaited<ReturnType<typeof read>> = await pending;
    if (!got) return;
    pending = got.next ? read(got.next) : null;
    // A caller that stops early (a cancel) leaves the read ahead unawaited: its failure is nobody's to report.
    pending?.catch(() => undefined);
    yield got.batch;
  }
}

/** The forms' items that hold uploads: upload items, and list groups and tables with an upload column. */
function uploadHolders(definition: CrfDefinition): CrfNode[] {
  const out: CrfNode[] = [];
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (isUploadItem(node) || (isRowType(node.type) && node.children.some(isUploadItem))) out.push(node);
      else walk(node.children);
    }
  };
  walk(definition.children);
  return out;
}

/** Fills `into` with the names of the records' uploaded files (one statement a batch); a file not found is named as such. */
async function nameFiles(
  ctx: AppContext,
  plan: ExportPlan,
  records: readonly ExportRecord[],
  into: Map<string, string>,
) {
  const holders = new Map(plan.forms.map((f) => [f.crfId, uploadHolders(f.definition)]));
  const keys = records.flatMap((r) =>
    (holders.get(r.crfId) ?? []).flatMap((node) => fileKeysOf(node, r.values[node.name])),
  );
  if (keys.length === 0) return;
  const found = await fileNamesOf(ctx.db, plan.studyId, keys);
  for (const key of keys) into.set(key, found.get(key) ?? UNKNOWN_FILE_NAME);
}

async function signedPatients(ctx: AppContext, studyId: number, ids: number[]) {
  const rows = await ctx.db
    .select({ id: signatures.subjectRecordId })
    .from(signatures)
    .where(
      and(eq(signatures.studyId, studyId), inArray(signatures.subjectRecordId, ids), isNull(signatures.invalidatedAt)),
    );
  return new Set(rows.map((r) => r.id));
}

async function doubtedRecords(ctx: AppContext, studyId: number, ids: number[]) {
  const rows = await ctx.db
    .select({ id: doubts.crfDataRecordId })
    .from(doubts)
    .where(and(eq(doubts.studyId, studyId), inArray(doubts.subjectRecordId, ids), ne(doubts.optionType, DOUBT_CLOSED)));
  return new Set(rows.map((r) => r.id));
}
