/**
 * One row of a sheet judged as the save would judge it: the file's cells over the stored values and marks, the engine's
 * verdict (evaluateForm, blockingErrors, the dropped values and missing-data marks), the identifier rule, and the
 * row's changes for the preview. The save judges the row again when the import writes, and its verdict is final.
 */
import {
  blockingErrors,
  cellValue,
  changedItemNames,
  changedMarkNames,
  evaluateForm,
  FORM_STATE,
  genderFromPatient,
  isEmptyValue,
  maskIdentifierValue,
  missingCodeOfCell,
  missingMarkIssues,
  missingMarkText,
  valuesDroppedByRules,
  valueText,
  type CrfDefinition,
  type ImportColumn,
  type ImportItemChange,
  type ImportRowPlan,
  type MissingCode,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { StudyAccess } from '../../shared/study-access.js';
import type { OtherFormValues } from '../crf-data/linked-values.service.js';
import { formIdentifiers } from '../crf-data/identifier-values.js';
import { definitionOf, nodesOf } from '../study/crf-definitions.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import type { SheetPlan } from './data-import-sheets.js';
import type { ImportPatient } from './data-import-stored.js';
import type { PlanOptions, StoredRecord, Target } from './data-import.types.js';

/** What every row of one plan is judged with. */
export interface RowJudging {
  ctx: AppContext;
  access: StudyAccess;
  options: PlanOptions;
  missingCodes: MissingCode[];
  now: Date;
  othersOf: (definition: CrfDefinition, subjectRecordId: number) => Promise<OtherFormValues>;
}

/** The row as the plan found it: its patient and the record it writes (none for a new one). */
export interface PlannedRow {
  row: number;
  cells: readonly unknown[];
  code: string;
  patient: ImportPatient;
  existing: StoredRecord | null;
  plan: ImportRowPlan;
  fail: (message: string, column?: string | null) => void;
}

function textOf(column: ImportColumn | undefined, value: unknown, values: Record<string, unknown>): string {
  return valueText(column?.node, value, values);
}

/** The row's target: its values and marks, what changes, and its errors (also on `plan`). */
export async function judgeRow(j: RowJudging, p: SheetPlan, r: PlannedRow): Promise<Target> {
  const { ctx, access, options, missingCodes, now, othersOf } = j;
  const { row, cells, code, patient, existing, plan, fail } = r;
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
  return {
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
  };
}
