/**
 * Reading a workbook against the study: the plan of what it would write (planImport) and the preview of it. The
 * import run that writes a plan: data-import-run.service.ts; the template workbook: data-import-template.service.ts.
 */
import { lockRefusals } from '../locks/lock-gate.js';
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import {
  blockingErrors,
  valuesDroppedByRules,
  changedItemNames,
  CODE_COLUMNS,
  DICTIONARY_SHEET,
  evaluateForm,
  FORM_STATE,
  genderFromPatient,
  headerMeaning,
  importColumns,
  INSTANCE_COLUMNS,
  PREVIEW_ROW_LIMIT,
  README_SHEET,
  cellValue,
  isEmptyValue,
  maskIdentifierValue,
  valueText,
  excelSheetNames,
  changedMarkNames,
  missingCodeOfCell,
  missingMarkIssues,
  missingMarkText,
  type CrfDefinition,
  type ImportColumn,
  type ImportIssue,
  type ImportItemChange,
  type ImportPreview,
  type ImportRowPlan,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { stageLinksOf, studyFormsOf } from '../../shared/study-forms.js';
import { can } from '../crf-data/crf-data.service.js';
import { definitionOf, nodesOf } from '../study/crf-definitions.js';
import { otherFormValuesOf, type OtherFormValues } from '../crf-data/linked-values.service.js';
import { formIdentifiers } from '../crf-data/identifier-values.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { getMissingCodes } from '../study/missing-codes.service.js';
import type { ReadSheet } from './data-import.pool.js';
import { timeSlices } from '../crf-data/form-write-batch.js';

/**
 * Each CRF's sheet name, computed over all the study's forms in their order, so that the template (which holds
 * only the forms the user may edit) and the reading of a workbook give one form the same name.
 */
export function sheetNamesOf(forms: readonly Form[]): Map<number, string> {
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
  missing: Record<string, string>;
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
  /** 缺失原因: the stored marks with the file's over them (a cell holding a code marks, a value clears). */
  missing: Record<string, string>;
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

export async function studyForms(db: Db, studyId: number): Promise<Form[]> {
  const forms = await studyFormsOf(db, studyId);
  const links = await stageLinksOf(db, studyId);
  return forms.map((f) => ({
    crfId: f.id,
    title: f.title,
    currentVersion: f.version,
    repeatable: links.some((l) => l.crfId === f.id && l.repeat !== 1),
  }));
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
  const missingCodes = await getMissingCodes(ctx, access.studyId);
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
        missing: crfDataRecords.missing,
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
      const marksBefore = existing?.missing ?? {};
      const marks: Record<string, string> = { ...marksBefore };
      const columnOfItem = new Map<string, string>();
      const columns = new Map<string, ImportColumn>();
      for (const { at, header, column } of p.items) {
        const node = nodes.get(column.name);
        // 缺失原因: a cell holding one of the study's codes (ND, 未查 or 未查(ND)) marks the item instead of a value.
        const code = node ? missingCodeOfCell(cells[at], missingCodes) : undefined;
        if (code) {
          marks[column.name] = code;
          delete values[column.name];
          columnOfItem.set(column.name, header);
          columns.set(column.name, { ...column, node: node! });
          continue;
        }
        const value = cellValue(node ? { ...column, node } : column, (cells[at] ?? null) as never);
        if (value === undefined) continue;
        if (!node) {
          fail('此患者的记录使用的CRF版本中没有此题目', header);
          continue;
        }
        values[column.name] = value;
        delete marks[column.name];
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
        missing: marks,
      });
      // The save's rules, in the save's words (judgeSave): a cell for an item the row's answers hide is refused too.
      const refused = [
        ...blockingErrors(evaluated, complete),
        ...valuesDroppedByRules(definition, values, before, evaluated),
        ...missingMarkIssues(definition, values, marks, marksBefore, missingCodes, evaluated),
      ];
      for (const issue of refused) {
        const item = issue.container ?? issue.item;
        const title = nodes.get(item)?.title ?? item;
        const where = issue.container ? `（第${(issue.row ?? 0) + 1}行）` : '';
        fail(`${issue.message}${where}`, columnOfItem.get(item) ?? title);
      }
      const after = evaluated.values as Record<string, unknown>;
      const missing = { ...evaluated.missing };
      const changed = [...new Set([...changedItemNames(before, after), ...changedMarkNames(marksBefore, missing)])];
      // A mark shows where the value would, as the audit trail writes it: [缺失:ND].
      const cellText = (item: string, v: Record<string, unknown>, m: Record<string, string>) =>
        Object.hasOwn(m, item) ? missingMarkText(m[item]!) : textOf(columns.get(item), shown(item, v[item]), v);
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
        old: cellText(item, before, marksBefore),
        new: cellText(item, after, missing),
      }));
      targets.push({
        sheet: p.sheet.name,
        row,
        code,
        subjectRecordId: patient.subjectRecordId,
        form: p.form,
        existing,
        values,
        missing: marks,
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

export function patientsOf(plan: ImportPlan) {
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
