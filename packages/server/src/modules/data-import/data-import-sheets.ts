/**
 * A workbook's sheets read against the study's forms: which form each sheet fills, whether the importer may, and which
 * column holds the patient code, the record number and each item. Only the headers: the rows are the plan's.
 */
import {
  CODE_COLUMNS,
  DICTIONARY_SHEET,
  excelSheetNames,
  headerMeaning,
  importColumns,
  INSTANCE_COLUMNS,
  README_SHEET,
  type CrfDefinition,
  type ImportColumn,
  type ImportIssue,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { stageLinksOf, studyFormsOf } from '../../shared/study-forms.js';
import { can } from '../crf-data/crf-data.service.js';
import { definitionOf } from '../study/crf-definitions.js';
import type { ReadSheet } from './data-import.pool.js';
import type { Form } from './data-import.types.js';

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

export interface SheetPlan {
  sheet: ReadSheet;
  form: Form;
  definition: CrfDefinition;
  codeAt: number;
  instanceAt: number;
  items: Array<{ at: number; header: string; column: ImportColumn }>;
}

/** The sheets that name a form the importer may write, each with its columns; what is wrong goes to sheetErrors. */
export async function sheetPlansOf(
  ctx: AppContext,
  access: StudyAccess,
  sheets: ReadSheet[],
  forms: Form[],
  submit: boolean,
  sheetErrors: ImportIssue[],
): Promise<SheetPlan[]> {
  const byName = new Map<string, Form>();
  const names = sheetNamesOf(forms);
  for (const f of forms) byName.set(names.get(f.crfId)!, f);
  // A sheet named by the whole title (typed by hand) is read too, unless that is another form's sheet name.
  for (const f of forms) if (!byName.has(f.title)) byName.set(f.title, f);
  const action = submit ? 'submit' : 'save';
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
      issue(submit ? '您没有提交此表单的权限' : '您没有编辑此表单的权限');
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
  return plans;
}

// The template's second row holds the titles: skipped when its code cell is a code column's title.
export const dataRows = (p: SheetPlan) =>
  p.sheet.rows.filter(
    (r) => !(r.row === 2 && (CODE_COLUMNS as readonly string[]).includes(String(r.cells[p.codeAt] ?? '').trim())),
  );
export const codeOf = (p: SheetPlan, cells: readonly unknown[]) =>
  p.codeAt < 0 ? '' : String(cells[p.codeAt] ?? '').trim();
