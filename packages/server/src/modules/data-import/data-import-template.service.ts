/** The import template workbook: a sheet per form the user may edit, with the 说明 and 数据字典 sheets. */
import {
  CODE_COLUMNS,
  DICTIONARY_SHEET,
  importColumns,
  INSTANCE_COLUMNS,
  NOT_IMPORTABLE_TEXT,
  README_SHEET,
  dateFormatOf,
  isDateType,
  type ImportColumn,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { can } from '../crf-data/crf-data.service.js';
import { definitionOf } from '../study/crf-definitions.js';
import { getMissingCodes } from '../study/missing-codes.service.js';
import { sheetNamesOf, studyForms } from './data-import.service.js';

/** The 说明 sheet's block heading the study's missing-data codes. */
export const MISSING_CODES_HEADING = '缺失原因代码';

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
 * and a 数据字典 sheet with every item's type, option codes and labels and unit. The 说明 sheet lists the study's
 * missing-data codes (缺失原因代码) a cell may hold instead of a value.
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
  // 缺失原因 (issue 37): the study's codes, which a cell may hold instead of a value (missingCodeOfCell reads them).
  const missingCodes = await getMissingCodes(ctx, access.studyId);
  readme.addRow([]);
  readme.addRow([MISSING_CODES_HEADING]).font = { bold: true };
  readme.addRow([
    '题目未能取得数值时，可在单元格中填写本项目的缺失原因代码代替数值，也可填写其名称或“名称(代码)”，如“未查(ND)”；导入后该题目标记为此缺失原因。题目已有数值时填写代码会清除数值；在已标记缺失原因的题目中填写数值则清除标记。',
  ]);
  readme.addRow(['代码 = 名称']).font = { italic: true, color: { argb: 'FF666666' } };
  for (const c of missingCodes) readme.addRow([`${c.code} = ${c.label}`]);
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
