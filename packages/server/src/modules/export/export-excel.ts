import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { excelSheetNames, TEST_EXPORT_NOTICE } from '@ecrf/core';
import type { Worksheet } from 'exceljs';
import { RECORD_STATE_LABELS, type PlanForm } from './export-source.js';
import {
  cellOf,
  checkCancel,
  type Cell,
  patientCells,
  patientsWithRecords,
  stageName,
  type WriteContext,
  type WrittenFile,
} from './export-writer-common.js';

// Excel: one sheet per form (written one after the other, so the streamed zip never holds two), the data
// dictionary last (its last rows the study's missing-data codes, 缺失原因代码). Two header rows, both frozen: the
// titles a reader knows, then the variable names of the other formats and the dictionary (titles repeat: 性别 of
// the patient and of a form); a test export has a row saying 测试数据 above them on every sheet. Dates and
// date-times are Excel dates with a date format; a partial date (2020-UK-UK, 2020-05) stays text.

const EXCEL_DATE = 'yyyy-mm-dd';
const EXCEL_DATETIME = 'yyyy-mm-dd hh:mm:ss';
const WHOLE_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2})(?::(\d{2}))?(?::(\d{2}))?)?$/;

/** A stored date or date-time as the instant Excel shows as that wall time (exceljs writes a Date as UTC). */
function excelDate(value: Cell): { date: Date; numFmt: string } | null {
  const m = typeof value === 'string' ? WHOLE_DATE.exec(value) : null;
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1).map((p) => (p === undefined ? undefined : Number(p)));
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h, mi, s));
  if (date.getUTCMonth() !== mo! - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  return { date, numFmt: m[4] === undefined ? EXCEL_DATE : EXCEL_DATETIME };
}

/** A data row: the date columns' whole dates as Excel dates with their format, every other cell as it is. */
function addDataRow(sheet: Worksheet, cells: readonly Cell[], dateColumns: ReadonlySet<number>) {
  const dates = new Map<number, { date: Date; numFmt: string }>();
  for (const i of dateColumns) {
    const parsed = excelDate(cells[i] ?? null);
    if (parsed) dates.set(i, parsed);
  }
  const row = sheet.addRow(cells.map((c, i) => dates.get(i)?.date ?? c));
  for (const [i, { numFmt }] of dates) row.getCell(i + 1).numFmt = numFmt;
  row.commit();
}

/** A test export's first row of a sheet, above its headers (frozen with them): 测试数据, in bold red. */
function addTestNotice(sheet: Worksheet, test: boolean) {
  if (!test) return;
  const row = sheet.addRow([TEST_EXPORT_NOTICE]);
  row.getCell(1).font = { bold: true, color: { argb: 'FFFF0000' } };
  row.commit();
}

/** 缺失原因 (issue 37): the dictionary's rows of the study's missing-data codes say this in the 工作表 column. */
export const MISSING_CODES_ROWS = '（缺失原因代码）';

/** A `<item>_missing` variable (withMissingVariables): its cells hold one of the study's codes. */
const isMarkVariable = (v: PlanForm['variables'][number]) =>
  v.kind === 'text' && v.item.endsWith('_missing') && v.title.endsWith('（缺失原因）');

function sheetNames(forms: readonly PlanForm[]): string[] {
  return excelSheetNames(
    forms.map((f) => f.title),
    { reserved: ['数据字典'], fallback: (index) => `表单${forms[index]!.crfId}` },
  );
}

export async function writeExcel(ctx: WriteContext): Promise<WrittenFile> {
  const { plan } = ctx;
  const labels = plan.options.labels;
  const file = path.join(ctx.dir, 'export.xlsx');
  const out = fs.createWriteStream(file);
  // Loaded on the first Excel export rather than at start (≈ 13 MB, 0.6 s).
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const names = sheetNames(plan.forms);
  const unfilled = plan.options.states.includes('notFilled');
  let rows = 0;
  let done = 0;
  const steps = Math.max(1, plan.forms.length * Math.max(1, ctx.totalPatients));
  for (const [index, form] of plan.forms.entries()) {
    const sheet = workbook.addWorksheet(names[index]!, { views: [{ state: 'frozen', ySplit: ctx.test ? 3 : 2 }] });
    addTestNotice(sheet, ctx.test);
    sheet
      .addRow([
        ...plan.patientColumns.map((c) => c.title),
        '阶段',
        '记录序号',
        '表单状态',
        ...form.variables.map((v) => v.title + (v.unit ? `（${v.unit}）` : '')),
      ])
      .commit();
    sheet
      .addRow([
        ...plan.patientColumns.map((c) => c.name),
        'stage',
        'instance',
        'record_state',
        ...form.variables.map((v) => v.name),
      ])
      .commit();
    const leading = plan.patientColumns.length + 3;
    const dateColumns = new Set([
      ...plan.patientColumns.flatMap((c, i) => (c.date ? [i] : [])),
      ...form.variables.flatMap((v, i) => (v.kind === 'date' || v.kind === 'datetime' ? [leading + i] : [])),
    ]);
    for await (const batch of ctx.batches([form.crfId])) {
      checkCancel(ctx.signal);
      for (const { patient, records } of patientsWithRecords(batch)) {
        const head = patientCells(plan, patient, labels);
        for (const record of records) {
          const cells = [
            ...head,
            stageName(form),
            record.instance,
            RECORD_STATE_LABELS[String(record.state)] ?? String(record.state),
            ...form.variables.map((v) => cellOf(v, record, patient, labels)),
          ];
          addDataRow(sheet, cells, dateColumns);
          rows += 1;
        }
        if (records.length === 0 && unfilled) {
          addDataRow(sheet, [...head, stageName(form), null, '未填'], dateColumns);
          rows += 1;
        }
      }
      done += batch.patients.length;
      await ctx.progress(done / steps, `正在导出 ${form.title}`);
      // Let the zip stream take what the sheet wrote before the next batch is read.
      await new Promise((resolve) => setImmediate(resolve));
    }
    sheet.commit();
  }
  const dict = workbook.addWorksheet('数据字典');
  addTestNotice(dict, ctx.test);
  dict.addRow(['工作表', '变量名', '标题', '类型', '单位', '选项（编码=标签）']).commit();
  for (const c of plan.patientColumns) {
    dict.addRow(['（每个工作表）', c.name, c.title, c.date ? 'date' : 'text']).commit();
  }
  dict.addRow(['（每个工作表）', 'stage', '阶段', 'text']).commit();
  dict.addRow(['（每个工作表）', 'instance', '记录序号（重复表单的第几条记录）', 'number']).commit();
  dict.addRow(['（每个工作表）', 'record_state', '表单状态', 'text', '', '1=已保存；2=已提交']).commit();
  const codeList = plan.missingCodes.map((c) => `${c.code}=${c.label}`).join('；');
  for (const [index, form] of plan.forms.entries()) {
    for (const v of form.variables) {
      dict
        .addRow([
          names[index]!,
          v.name,
          v.title,
          v.kind,
          v.unit,
          v.kind === 'check'
            ? `1=已选；0=未选（${v.choices[0]!.value}=${v.choices[0]!.text}）`
            : isMarkVariable(v)
              ? codeList
              : v.choices.map((c) => `${c.value}=${c.text}`).join('；'),
        ])
        .commit();
    }
  }
  // The study's codes, whether or not a record uses them: a `<item>_missing` column holds one (the item no value).
  for (const c of plan.missingCodes) {
    dict
      .addRow([MISSING_CODES_ROWS, c.code, c.label, '缺失原因', '', '写在“<变量名>_missing”列；该题目无数值'])
      .commit();
  }
  dict.commit();
  await workbook.commit();
  await finished(out);
  return {
    path: file,
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    rows,
  };
}
