import { lockRefusals } from '../locks/lock-gate.js';
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import {
  blockingErrors,
  changedItemNames,
  CODE_COLUMNS,
  DATA_IMPORT_REASON,
  DICTIONARY_SHEET,
  evaluateForm,
  FORM_STATE,
  genderFromPatient,
  headerMeaning,
  importColumns,
  INSTANCE_COLUMNS,
  NOT_IMPORTABLE_TEXT,
  PREVIEW_ROW_LIMIT,
  README_SHEET,
  cellValue,
  dateFormatOf,
  isDateType,
  isEmptyValue,
  maskIdentifierValue,
  valueText,
  excelSheetNames,
  type CrfDefinition,
  type ImportColumn,
  type ImportIssue,
  type ImportItemChange,
  type ImportMode,
  type ImportPreview,
  type ImportResult,
  type ImportRowPlan,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { RecordedEvent } from '../../shared/domain-events.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, crfStageCrfs, crfs, studies, subjectRecords, subjects, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { can } from '../crf-data/crf-data.service.js';
import { definitionOf, nodesOf } from '../crf-data/crf-definitions.js';
import { otherFormValuesOf, type OtherFormValues } from '../crf-data/linked-values.service.js';
import { formIdentifiers } from '../crf-data/identifier-values.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { JobFailure, type JobInfo, type JobTools } from '../jobs/job-queue.js';
import type { ReadSheet, WorkbookPool } from './data-import.pool.js';
import {
  BatchRefused,
  timeSlices,
  writeFormBatch,
  type Refusal,
  type WriteCounts,
} from '../crf-data/form-write-batch.js';

/** The audit reason of every value a file brings in: 数据导入 and the file's SHA-256 (which file, provably). */
export const importReason = (sha256: string) => `${DATA_IMPORT_REASON}（文件SHA-256：${sha256}）`;

/**
 * Each CRF's sheet name, computed over all the study's forms in their order, so that the template (which holds
 * only the forms the user may edit) and the reading of a workbook give one form the same name.
 */
function sheetNamesOf(forms: readonly Form[]): Map<number, string> {
  const names = excelSheetNames(
    forms.map((f) => f.title),
    { reserved: [README_SHEET, DICTIONARY_SHEET] },
  );
  return new Map(forms.map((f, i) => [f.crfId, names[i]!]));
}

interface Form {
  crfId: number;
  title: string;
  currentVersion: number;
  repeatable: boolean;
}

interface StoredRecord {
  id: number;
  subjectRecordId: number;
  crfId: number;
  crfVersion: number;
  state: number;
  version: number;
  values: Record<string, unknown>;
}

/** One record the file writes: a patient's form (a repeatable form's record by its number). */
export interface Target {
  sheet: string;
  row: number;
  code: string;
  subjectRecordId: number;
  form: Form;
  existing: StoredRecord | null;
  /** The stored values with the file's cells over them: what the save is given. */
  values: Record<string, unknown>;
  changed: string[];
  submits: boolean;
  errors: ImportIssue[];
  plan: ImportRowPlan;
}

export interface ImportPlan {
  sheetErrors: ImportIssue[];
  /** Rows that name no patient of the study (or are otherwise refused before any form is looked at). */
  rowErrors: ImportRowPlan[];
  targets: Target[];
}

export interface PlanOptions {
  submit: boolean;
  /**
   * Whether each row's changes are spelled out (old and new text per item) for the preview. The import itself
   * only needs which items change; leaving the texts out saves a good share of its planning time and memory.
   */
  details?: boolean;
}

const chunk = <T>(list: readonly T[], size: number) =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, i * size + size));

/** Lets other requests run between pieces of a long plan on this thread. */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

async function studyForms(db: Db, studyId: number): Promise<Form[]> {
  const rows = await db
    .select({ crfId: crfs.id, title: crfs.title, currentVersion: crfs.currentVersion })
    .from(crfs)
    .where(eq(crfs.studyId, studyId))
    .orderBy(asc(crfs.id));
  const links = await db
    .select({ crfId: crfStageCrfs.crfId, repeat: crfStageCrfs.repeat })
    .from(crfStageCrfs)
    .where(eq(crfStageCrfs.studyId, studyId));
  return rows.map((r) => ({ ...r, repeatable: links.some((l) => l.crfId === r.crfId && l.repeat !== 1) }));
}

function textOf(column: ImportColumn | undefined, value: unknown, values: Record<string, unknown>): string {
  return valueText(column?.node, value, values);
}

/**
 * What a workbook would do, judged before anything is written: per sheet and row the patient, the form and
 * each item's old and new value, and every error. Values are judged by the engine exactly as the save
 * judges them (evaluateForm, then blockingErrors with the submit rules for a form that is or will be
 * submitted); the save judges them again when the import writes, and its verdict is final.
 */
export async function planImport(
  ctx: AppContext,
  access: StudyAccess,
  sheets: ReadSheet[],
  options: PlanOptions,
): Promise<ImportPlan> {
  const forms = await studyForms(ctx.db, access.studyId);
  const byName = new Map<string, Form>();
  const names = sheetNamesOf(forms);
  for (const f of forms) byName.set(names.get(f.crfId)!, f);
  // A sheet named by the whole title (typed by hand) is read too, unless that is another form's sheet name.
  for (const f of forms) if (!byName.has(f.title)) byName.set(f.title, f);
  const sheetErrors: ImportIssue[] = [];
  const action = options.submit ? 'submit' : 'save';

  interface SheetPlan {
    sheet: ReadSheet;
    form: Form;
    definition: CrfDefinition;
    codeAt: number;
    instanceAt: number;
    items: Array<{ at: number; header: string; column: ImportColumn }>;
  }
  const plans: SheetPlan[] = [];
  for (const sheet of sheets) {
    if (sheet.name === DICTIONARY_SHEET || sheet.name === README_SHEET) continue;
    const issue = (message: string, column: string | null = null) =>
      sheetErrors.push({ sheet: sheet.name, row: null, column, message });
    const form = byName.get(sheet.name.trim());
    if (!form) {
      if (sheet.rows.length > 0) issue('工作表名称不是本项目的CRF标题');
      continue;
    }
    if (!can(access, form.crfId, action)) {
      issue(options.submit ? '您没有提交此表单的权限' : '您没有编辑此表单的权限');
      continue;
    }
    const definition = await definitionOf(ctx.db, form.crfId, form.currentVersion);
    const columns = importColumns(definition);
    let codeAt = -1;
    let instanceAt = -1;
    const items: SheetPlan['items'] = [];
    const seen = new Map<string, string>();
    sheet.header.forEach((header, at) => {
      if (header === '') return;
      const meaning = headerMeaning(columns, header);
      if (meaning.kind === 'code') codeAt = at;
      else if (meaning.kind === 'instance') instanceAt = at;
      else if (meaning.kind === 'error') issue(meaning.message, header);
      else if (seen.has(meaning.column.name)) {
        issue(`与列“${seen.get(meaning.column.name)}”是同一题目`, header);
      } else {
        seen.set(meaning.column.name, header);
        items.push({ at, header, column: meaning.column });
      }
    });
    if (codeAt < 0) issue(`缺少患者编号列（${CODE_COLUMNS.slice(0, 2).join(' 或 ')}）`);
    if (form.repeatable && instanceAt < 0) {
      issue(`重复表单需要记录序号列（${INSTANCE_COLUMNS.slice(0, 2).join(' 或 ')}）`);
    }
    plans.push({ sheet, form, definition, codeAt, instanceAt, items });
  }

  // The template's second row holds the titles: skipped when its code cell is a code column's title.
  const dataRows = (p: SheetPlan) =>
    p.sheet.rows.filter(
      (r) => !(r.row === 2 && (CODE_COLUMNS as readonly string[]).includes(String(r.cells[p.codeAt] ?? '').trim())),
    );
  const codeOf = (p: SheetPlan, cells: readonly unknown[]) =>
    p.codeAt < 0 ? '' : String(cells[p.codeAt] ?? '').trim();

  // Patients: only live patients of this study, and of them only those at the caller's sites (分中心): a row naming
  // another site's patient is refused with its own error, as a row naming no patient is.
  const codes = [...new Set(plans.flatMap((p) => dataRows(p).map((r) => codeOf(p, r.cells))))].filter(Boolean);
  const patients = new Map<string, { subjectRecordId: number; gender: number }>();
  const otherSites = new Set<string>();
  for (const part of chunk(codes, 5_000)) {
    const found = await ctx.db
      .select({
        code: subjects.identificationCode,
        subjectRecordId: subjectRecords.id,
        gender: subjects.gender,
        siteId: subjects.deptId,
      })
      .from(subjects)
      .innerJoin(subjectRecords, and(eq(subjectRecords.subjectId, subjects.id), isNull(subjectRecords.deletedAt)))
      .where(
        and(
          eq(subjects.studyId, access.studyId),
          isNull(subjects.deletedAt),
          inArray(subjects.identificationCode, part),
        ),
      );
    for (const p of found) {
      if (seesSite(access, p.siteId)) patients.set(p.code, { subjectRecordId: p.subjectRecordId, gender: p.gender });
      else otherSites.add(p.code);
    }
  }
  const records = new Map<string, StoredRecord[]>();
  const crfIds = [...new Set(plans.map((p) => p.form.crfId))];
  const recordIds = [...new Set([...patients.values()].map((p) => p.subjectRecordId))];
  for (const part of chunk(recordIds, 5_000)) {
    if (crfIds.length === 0) break;
    const rows = await ctx.db
      .select({
        id: crfDataRecords.id,
        subjectRecordId: crfDataRecords.subjectRecordId,
        crfId: crfDataRecords.crfId,
        crfVersion: crfDataRecords.crfVersion,
        state: crfDataRecords.state,
        version: crfDataRecords.version,
        values: crfDataRecords.values,
      })
      .from(crfDataRecords)
      .where(
        and(
          eq(crfDataRecords.studyId, access.studyId),
          inArray(crfDataRecords.subjectRecordId, part),
          inArray(crfDataRecords.crfId, crfIds),
          isNull(crfDataRecords.deletedAt),
        ),
      )
      .orderBy(asc(crfDataRecords.id));
    for (const r of rows) {
      const key = `${r.subjectRecordId}:${r.crfId}`;
      records.set(key, [...(records.get(key) ?? []), r]);
    }
  }

  const rowErrors: ImportRowPlan[] = [];
  const targets: Target[] = [];
  const taken = new Map<string, number>();
  const newInstances = new Map<string, number>();
  // Other forms' values (form() references), read for every patient of the file at once per definition that
  // has any, instead of once per row.
  const otherValues = new Map<CrfDefinition, Map<number, OtherFormValues>>();
  const allRecordIds = [...new Set([...patients.values()].map((p) => p.subjectRecordId))];
  const othersOf = async (definition: CrfDefinition, subjectRecordId: number): Promise<OtherFormValues> => {
    let loaded = otherValues.get(definition);
    if (!loaded) {
      loaded = new Map();
      for (const part of chunk(allRecordIds, 5_000)) {
        for (const [id, values] of await otherFormValuesOf(ctx.db, access.studyId, part, definition)) {
          loaded.set(id, values);
        }
      }
      otherValues.set(definition, loaded);
    }
    return loaded.get(subjectRecordId) ?? {};
  };
  const now = ctx.clock();
  const slice = timeSlices();
  for (const p of plans) {
    const broken = sheetErrors.some((e) => e.sheet === p.sheet.name);
    for (const { row, cells } of dataRows(p)) {
      await slice();
      const code = codeOf(p, cells);
      const plan: ImportRowPlan = {
        sheet: p.sheet.name,
        row,
        identificationCode: code,
        crfTitle: p.form.title,
        action: 'unchanged',
        submitted: false,
        changes: [],
        errors: [],
      };
      const fail = (message: string, column: string | null = null) =>
        plan.errors.push({ sheet: p.sheet.name, row, column, message });
      const patient = patients.get(code);
      if (broken) continue;
      if (!code) fail('患者编号为空', p.sheet.header[p.codeAt] ?? null);
      else if (otherSites.has(code)) fail('患者不在您的中心范围内', p.sheet.header[p.codeAt] ?? null);
      else if (!patient) fail('本项目中没有此患者编号', p.sheet.header[p.codeAt] ?? null);
      if (!patient) {
        rowErrors.push(plan);
        continue;
      }
      const stored = records.get(`${patient.subjectRecordId}:${p.form.crfId}`) ?? [];
      let existing: StoredRecord | null = stored[0] ?? null;
      let instance = 1;
      if (p.form.repeatable) {
        const header = p.sheet.header[p.instanceAt] ?? null;
        const raw = cells[p.instanceAt];
        instance = Number(typeof raw === 'string' ? raw.trim() : raw);
        if (!Number.isInteger(instance) || instance < 1) {
          fail('记录序号应为正整数', header);
          rowErrors.push(plan);
          continue;
        }
        existing = stored[instance - 1] ?? null;
        const formKey = `${patient.subjectRecordId}:${p.form.crfId}`;
        if (!existing) {
          const next = stored.length + (newInstances.get(formKey) ?? 0) + 1;
          if (instance !== next) {
            fail(`记录序号应连续，下一条新记录为 ${next}`, header);
            rowErrors.push(plan);
            continue;
          }
          newInstances.set(formKey, next - stored.length);
        }
      }
      const targetKey = `${patient.subjectRecordId}:${p.form.crfId}:${instance}`;
      const first = taken.get(targetKey);
      if (first !== undefined) {
        fail(`与第${first}行是同一患者的同一表单记录`);
        rowErrors.push(plan);
        continue;
      }
      taken.set(targetKey, row);

      const definition = existing ? await definitionOf(ctx.db, p.form.crfId, existing.crfVersion) : p.definition;
      const nodes = nodesOf(definition);
      const before = existing?.values ?? {};
      const values: Record<string, unknown> = { ...before };
      const columnOfItem = new Map<string, string>();
      const columns = new Map<string, ImportColumn>();
      for (const { at, header, column } of p.items) {
        const node = nodes.get(column.name);
        const value = cellValue(node ? { ...column, node } : column, (cells[at] ?? null) as never);
        if (value === undefined) continue;
        if (!node) {
          fail('此患者的记录使用的CRF版本中没有此题目', header);
          continue;
        }
        values[column.name] = value;
        columnOfItem.set(column.name, header);
        columns.set(column.name, { ...column, node });
      }
      const complete = options.submit || existing?.state === FORM_STATE.submitted;
      const forms = await othersOf(definition, patient.subjectRecordId);
      const evaluated = evaluateForm(definition, values, {
        now,
        timeZone: access.timeZone,
        gender: genderFromPatient(patient.gender),
        forms,
      });
      for (const issue of blockingErrors(evaluated, complete)) {
        const item = issue.container ?? issue.item;
        const title = nodes.get(item)?.title ?? item;
        const where = issue.container ? `（第${(issue.row ?? 0) + 1}行）` : '';
        fail(`${issue.message}${where}`, columnOfItem.get(item) ?? title);
      }
      const after = evaluated.values as Record<string, unknown>;
      const changed = changedItemNames(before, after);
      // PIPL: an importer without 查看患者身份信息 may fill an empty identifier item, not change a stored one, and
      // the preview shows its values masked (the save's rule, identifier-values.ts).
      const hidden = seesIdentifiers(access)
        ? null
        : await formIdentifiers(ctx.db, p.form.crfId, existing ? [existing.crfVersion] : []);
      const shown = (item: string, value: unknown) => (hidden ? maskIdentifierValue(hidden, item, value) : value);
      for (const item of hidden ? changed : []) {
        if (hidden!.items.has(item) && !isEmptyValue(before[item])) {
          fail('无权修改已填写的身份标识字段（需要“查看患者身份信息”权限）', columnOfItem.get(item) ?? item);
        }
      }
      const submits = options.submit && existing?.state !== FORM_STATE.submitted;
      plan.submitted = complete;
      plan.action = !existing ? 'create' : changed.length > 0 || submits ? 'update' : 'unchanged';
      plan.changes = (options.details === false ? [] : changed).map((item): ImportItemChange => ({
        item,
        title: nodes.get(item)?.title ?? item,
        column: columnOfItem.get(item) ?? '',
        old: textOf(columns.get(item), shown(item, before[item]), before),
        new: textOf(columns.get(item), shown(item, after[item]), after),
      }));
      targets.push({
        sheet: p.sheet.name,
        row,
        code,
        subjectRecordId: patient.subjectRecordId,
        form: p.form,
        existing,
        values,
        changed,
        submits,
        errors: plan.errors,
        plan,
      });
    }
  }
  // Locked casebooks and forms, and a finished study (docs/multi-centre.md): the preview names the lock, in the words
  // the write would refuse them with, so a dry run promises nothing the import cannot keep.
  if (targets.length > 0) {
    const lockOf = await lockRefusals(
      ctx.db,
      access.studyId,
      targets.map((t) => ({ subjectRecordId: t.subjectRecordId, crfDataRecordId: t.existing?.id ?? null })),
    );
    for (const t of targets) {
      const refusal = lockOf({ subjectRecordId: t.subjectRecordId, crfDataRecordId: t.existing?.id ?? null });
      if (refusal) t.errors.push({ sheet: t.sheet, row: t.row, column: null, message: refusal.message });
    }
  }
  return { sheetErrors, rowErrors, targets };
}

/** The preview's answer: counts, sheet errors and the rows (those with errors first, at most PREVIEW_ROW_LIMIT). */
export function previewOf(plan: ImportPlan, fileName: string, sha256: string): ImportPreview {
  const all = [...plan.rowErrors, ...plan.targets.map((t) => t.plan)];
  const byPatient = patientsOf(plan);
  const rows = [...all.filter((r) => r.errors.length > 0), ...all.filter((r) => r.errors.length === 0)].sort(
    (a, b) => Number(b.errors.length > 0) - Number(a.errors.length > 0),
  );
  return {
    fileName,
    sha256,
    summary: {
      rows: all.length,
      patients: new Set(all.map((r) => r.identificationCode)).size,
      creates: all.filter((r) => r.errors.length === 0 && r.action === 'create').length,
      updates: all.filter((r) => r.errors.length === 0 && r.action === 'update').length,
      unchanged: all.filter((r) => r.errors.length === 0 && r.action === 'unchanged').length,
      errors: plan.sheetErrors.length + all.reduce((n, r) => n + r.errors.length, 0),
      validPatients: plan.sheetErrors.length > 0 ? 0 : [...byPatient.values()].filter((p) => p.valid).length,
    },
    sheetErrors: plan.sheetErrors,
    rows: rows.slice(0, PREVIEW_ROW_LIMIT),
    truncated: rows.length > PREVIEW_ROW_LIMIT,
  };
}

function patientsOf(plan: ImportPlan) {
  const out = new Map<string, { valid: boolean; targets: Target[] }>();
  for (const r of plan.rowErrors) out.set(r.identificationCode, { valid: false, targets: [] });
  for (const t of plan.targets) {
    const p = out.get(t.code) ?? { valid: true, targets: [] };
    p.targets.push(t);
    if (t.errors.length > 0) p.valid = false;
    out.set(t.code, p);
  }
  return out;
}

export const planErrors = (plan: ImportPlan): ImportIssue[] => [
  ...plan.sheetErrors,
  ...plan.rowErrors.flatMap((r) => r.errors),
  ...plan.targets.flatMap((t) => t.errors),
];

export interface ImportRunOptions {
  mode: ImportMode;
  submitType: 0 | 1;
  sha256: string;
  /** Called after each batch of patients (done, total); a job reports it as progress. */
  progress?: (done: number, total: number) => Promise<void>;
  signal?: AbortSignal;
}

/**
 * How many patients one transaction writes. The size adapts to how long the last batch took, aiming at
 * `targetMs` a batch (on the embedded database a transaction holds the only connection, so its length is what
 * another request may wait; on PostgreSQL a short transaction holds its record locks briefly), between 1 and
 * `patients`, and never more than about `values` audit rows (a wide form makes smaller batches). It starts at
 * `first`. Any size is a few statements.
 */
export const IMPORT_BATCH = { patients: 100, values: 1_500, targetMs: 50, first: 10 };

/** How long the import waits for a batch's reactions before it goes on regardless (a subscriber may be failing). */
const REACTIONS_WAIT_MS = 10_000;

/** Hands out the next batch of patients: `size` of them, fewer when their audit rows would pass `limits.values`. */
function batcher<T extends { targets: Target[] }>(patients: readonly T[], limits = IMPORT_BATCH) {
  let at = 0;
  let size = Math.max(1, Math.min(limits.first, limits.patients));
  return {
    next(): T[] {
      const batch: T[] = [];
      let weight = 0;
      while (at < patients.length && batch.length < size) {
        const w = patients[at]!.targets.reduce((n, t) => n + t.changed.length + 2, 0);
        if (batch.length > 0 && weight + w > limits.values) break;
        batch.push(patients[at]!);
        weight += w;
        at += 1;
      }
      return batch;
    },
    /** The last batch of `count` patients took `ms`: the next one is sized for `targetMs` (at most doubling). */
    took(count: number, ms: number) {
      const ideal = Math.round((count * limits.targetMs) / Math.max(ms, 1));
      size = Math.max(1, Math.min(limits.patients, count * 2, ideal));
    },
  };
}

/**
 * Writes a plan through the one write path (crf-data/form-write.ts, its batch): the engine judges every record
 * again at write time and its verdict is final, the reason rules for submitted forms hold (the reason is
 * 数据导入 with the file's hash), each changed value gets its audit row, verification marks and signatures are
 * voided and the domain events are recorded. Records are written set-based, a batch of patients per
 * statement (the one write path's batch, crf-data/form-write-batch.ts). `file`: one transaction, nothing written unless every row is valid.
 * `patient`: one transaction per batch of patients, and still all or nothing per patient: a patient with any
 * error in the plan is left out, and a patient the save refuses at write time (a record changed or deleted
 * since the file was planned) rolls the batch back, which is then written again without that patient. A
 * sheet-wide error (unknown sheet or column, a form the user may not edit) stops both: the file needs fixing.
 */
export async function applyPlan(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  plan: ImportPlan,
  options: ImportRunOptions,
): Promise<ImportResult> {
  const errors = planErrors(plan);
  const byPatient = patientsOf(plan);
  const result: ImportResult = {
    sha256: options.sha256,
    mode: options.mode,
    submitType: options.submitType,
    importedPatients: 0,
    skippedPatients: 0,
    createdRecords: 0,
    updatedRecords: 0,
    values: 0,
    errors,
  };
  if (plan.sheetErrors.length > 0 || (options.mode === 'file' && errors.length > 0)) {
    result.skippedPatients = byPatient.size;
    return result;
  }
  const reason = importReason(options.sha256);
  const submit = options.submitType === 1;
  // Records the plan found nothing to change in are not written (and not audited).
  const writes = (targets: readonly Target[]) =>
    targets.filter((t) => t.changed.length > 0 || t.submits || !t.existing);
  const write = (tx: Db, patients: ReadonlyArray<{ targets: Target[] }>) =>
    writeFormBatch(
      tx,
      ctx,
      { kind: 'staff', user, access },
      patients.map((p) => writes(p.targets)),
      { submit, reason, now: ctx.clock() },
    );
  const add = (n: WriteCounts, patients: number) => {
    result.createdRecords += n.created;
    result.updatedRecords += n.updated;
    result.values += n.values;
    result.importedPatients += patients;
  };
  const refusal = ({ target, cause }: Refusal): ImportIssue => {
    const issues = (cause.data as { errors?: Array<{ itemName: string; message: string }> } | null)?.errors ?? [];
    const detail = issues.map((i) => `${i.itemName}：${i.message}`).join('；');
    const row = target as Target;
    return {
      sheet: row.sheet,
      row: row.row,
      column: null,
      message: `${cause.message}${detail ? `（${detail}）` : ''}`,
    };
  };

  const valid = [...byPatient.values()].filter((p) => p.valid);
  const batches = batcher(valid);
  if (options.mode === 'file') {
    try {
      const n = await ctx.db.transaction(async (tx) => {
        const sum: WriteCounts = { created: 0, updated: 0, values: 0 };
        for (let batch = batches.next(); batch.length > 0; batch = batches.next()) {
          await breathe();
          const started = performance.now();
          const part = await write(tx, batch);
          batches.took(batch.length, performance.now() - started);
          sum.created += part.created;
          sum.updated += part.updated;
          sum.values += part.values;
        }
        return sum;
      });
      add(n, byPatient.size);
    } catch (err) {
      if (!(err instanceof BatchRefused)) throw err;
      result.errors.push(...err.refusals.map(refusal));
      result.skippedPatients = byPatient.size;
    }
    await options.progress?.(1, 1);
    return result;
  }
  result.skippedPatients = byPatient.size - valid.length;
  let done = byPatient.size - valid.length;
  let reactions: RecordedEvent | undefined;
  for (let batch = batches.next(); batch.length > 0; batch = batches.next()) {
    if (options.signal?.aborted) break;
    // The previous batch's reactions (system queries, follow-up, realtime: a transaction and an engine run per
    // record, after commit) first: the import never runs more than a batch ahead of them, so that it and they do
    // not pile up on the server's cores together and other requests keep being served promptly.
    if (reactions) await ctx.events.settled(reactions, REACTIONS_WAIT_MS);
    let members = batch;
    while (members.length > 0) {
      // Between transactions other requests get the (single, on PGlite) connection: the next transaction
      // would otherwise take it again before their queries are queued.
      await breathe();
      try {
        const started = performance.now();
        const n = await ctx.db.transaction((tx) => write(tx, members));
        batches.took(members.length, performance.now() - started);
        add(n, members.length);
        reactions = n.lastEvent;
        break;
      } catch (err) {
        if (!(err instanceof BatchRefused)) throw err;
        const refused = new Set(err.refusals.map((r) => r.target.subjectRecordId));
        result.errors.push(...err.refusals.map(refusal));
        result.skippedPatients += refused.size;
        members = members.filter((p) => !refused.has(p.targets[0]!.subjectRecordId));
      }
    }
    done += batch.length;
    await options.progress?.(done, byPatient.size);
  }
  return result;
}

function typeText(column: ImportColumn): string {
  const { node } = column;
  if (isDateType(node.type)) return `日期（${dateFormatOf(node)}）`;
  const names: Record<string, string> = {
    radio: '单选',
    select: '下拉单选',
    checkbox: '多选（多个代码用逗号分隔）',
    multiSelect: '下拉多选（多个代码用逗号分隔）',
    int: '整数',
    real: '数字',
    number: '数字',
    slider: '数字（滑块）',
    time: '时间',
    textarea: '文本',
    input: '文本',
    text: '文本',
  };
  return names[node.type] ?? node.type;
}

/**
 * The template workbook: a 说明 sheet, one sheet per CRF the user may edit (row 1 the variable names a reader
 * matches first, row 2 their titles, skipped on import; a repeatable form's record number after the code),
 * and a 数据字典 sheet with every item's type, option codes and labels and unit.
 */
export async function templateWorkbook(ctx: AppContext, access: StudyAccess): Promise<Buffer> {
  const allForms = await studyForms(ctx.db, access.studyId);
  // Names over all the study's forms, as the reading computes them; sheets only for the ones the user may save.
  const names = sheetNamesOf(allForms);
  const forms = allForms.filter((f) => can(access, f.crfId, 'save'));
  // exceljs loads on the first template rather than at start (≈ 13 MB, 0.6 s).
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  wb.creator = 'EDC';
  const readme = wb.addWorksheet(README_SHEET);
  readme.getColumn(1).width = 110;
  for (const line of [
    '数据导入模板',
    '每个工作表对应一个CRF（工作表名称为CRF标题）；第1行为变量名，第2行为题目标题（导入时跳过），从第3行起每行为一位患者的一条表单记录。',
    '列标题可以写变量名或题目标题：同一文字既是某题的变量名又是另一题的标题时按变量名匹配；多个题目标题相同时须写变量名。',
    '编号列填写患者在本项目中的编号；可重复表单的“序号”列填写该患者此表单的第几条记录（新记录接在已有记录之后）。',
    '单选、多选可填写选项代码或选项标签（多个用逗号分隔）；日期按数据字典中的格式填写，也可使用 Excel 日期单元格。',
    '空白单元格不修改已有数据；计算项、图片与文件、列表题目不能通过表格导入。',
    '导入前请先“预览”：系统列出将新增或修改的数据和全部错误，确认后再导入。每个导入的值都记录稽查轨迹（原因：数据导入，并附文件的SHA-256）。',
    `本模板的数据表：${forms.length}个（${DICTIONARY_SHEET}工作表列出每个题目的类型、选项和单位）。`,
  ]) {
    readme.addRow([line]);
  }
  readme.getRow(1).font = { bold: true, size: 14 };
  const dictionary: Array<(string | number)[]> = [];
  for (const form of forms) {
    const definition = await definitionOf(ctx.db, form.crfId, form.currentVersion);
    const columns = importColumns(definition);
    const sheet = wb.addWorksheet(names.get(form.crfId)!);
    const importable = columns.filter((c) => !c.notImportable);
    const meta = form.repeatable ? [CODE_COLUMNS[0], INSTANCE_COLUMNS[0]] : [CODE_COLUMNS[0]];
    const metaTitles = form.repeatable ? [CODE_COLUMNS[1], INSTANCE_COLUMNS[1]] : [CODE_COLUMNS[1]];
    sheet.addRow([...meta, ...importable.map((c) => c.name)]);
    sheet.addRow([...metaTitles, ...importable.map((c) => (c.unit ? `${c.title}（${c.unit}）` : c.title))]);
    sheet.getRow(1).font = { bold: true };
    sheet.getRow(2).font = { italic: true, color: { argb: 'FF666666' } };
    sheet.views = [{ state: 'frozen', xSplit: meta.length, ySplit: 2 }];
    sheet.columns.forEach((c) => {
      c.width = 16;
    });
    for (const c of columns) {
      dictionary.push([
        form.title,
        c.name,
        c.title,
        typeText(c),
        c.choices.map((o) => `${o.value}=${o.text}`).join('；'),
        c.unit,
        c.notImportable ? NOT_IMPORTABLE_TEXT[c.notImportable] : c.node.option.required ? '必填（提交时）' : '',
      ]);
    }
  }
  const dict = wb.addWorksheet(DICTIONARY_SHEET);
  dict.addRow(['表单', '变量名', '标题', '类型', '选项（代码=标签）', '单位', '说明']);
  dict.getRow(1).font = { bold: true };
  for (const row of dictionary) dict.addRow(row);
  [24, 20, 28, 26, 50, 10, 40].forEach((w, i) => {
    dict.getColumn(i + 1).width = w;
  });
  return Buffer.from(await wb.xlsx.writeBuffer());
}

export const IMPORT_JOB_KIND = 'data.import';

/** A job's payload: ids and options only (the workbook waits in the file storage under data-imports/). */
export interface ImportJobPayload {
  studyId: number;
  fileKey: string;
  fileName: string;
  sha256: string;
  mode: ImportMode;
  submitType: 0 | 1;
  /** The owner's system permissions when asked (study:manage decides access like for a request). */
  systemPermissions: string[];
}

export const importFileKey = (fileKey: string) => `data-imports/${fileKey}`;

export async function studyNameOf(ctx: AppContext, studyId: number) {
  const [study] = await ctx.db.select({ name: studies.studyName }).from(studies).where(eq(studies.studyId, studyId));
  return study?.name ?? '项目';
}

/**
 * The import job: re-runnable, as every handler must be. A re-run plans the file again against the data as it
 * now stands, so what a first run wrote reads as unchanged and is not written twice.
 */
export async function runImportJob(
  ctx: AppContext,
  pool: WorkbookPool,
  job: JobInfo<ImportJobPayload>,
  tools: JobTools,
  accessOf: (userId: number, systemPermissions: string[], studyId: number) => Promise<StudyAccess | null>,
): Promise<ImportResult> {
  const p = job.payload;
  const key = importFileKey(p.fileKey);
  const stream = await ctx.files.get(key);
  if (!stream) throw new JobFailure('导入文件已不存在，请重新上传');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  try {
    const access = await accessOf(job.ownerId, p.systemPermissions, p.studyId);
    if (!access) throw new JobFailure('您已不是该项目成员，无法导入');
    const [owner] = await ctx.db.select().from(users).where(eq(users.userId, job.ownerId));
    if (!owner) throw new JobFailure('用户不存在');
    const user: CurrentUser = {
      userId: owner.userId,
      userName: owner.userName,
      name: owner.name,
      deptId: owner.deptId,
      sessionId: '',
      admin: false,
      permissions: p.systemPermissions,
      setPasswordMust: false,
    };
    await tools.progress(2, '正在读取文件');
    const sheets = await pool.read(Buffer.concat(chunks));
    await tools.progress(5, '正在检查数据');
    const plan = await planImport(ctx, access, sheets, { submit: p.submitType === 1, details: false });
    await tools.progress(20, '正在导入');
    return await applyPlan(ctx, user, access, plan, {
      mode: p.mode,
      submitType: p.submitType,
      sha256: p.sha256,
      signal: tools.signal,
      progress: (done, total) => tools.progress(20 + Math.floor((done / total) * 79), `正在导入 ${done}/${total}`),
    });
  } catch (err) {
    if (err instanceof AppError) throw new JobFailure(err.message);
    throw err;
  } finally {
    // A stop for shutdown runs the job again: its file must stay until the job has ended.
    if (!tools.signal.aborted) await ctx.files.delete(key);
  }
}
