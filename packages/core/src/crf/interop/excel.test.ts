import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition } from '../crf-definition.schema.js';
import { evaluateForm } from '../evaluate-form.js';
import { baselineCrf, item } from '../test/fixtures.js';
import { createExcelTemplate, exportExcel, importExcel } from './excel.js';
import { formatImportIssue } from './import-result.js';

const context = { now: new Date(Date.UTC(2024, 5, 15, 2)), gender: 'male' as const };

async function workbookBytes(build: (workbook: ExcelJS.Workbook) => void): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  build(workbook);
  return new Uint8Array((await workbook.xlsx.writeBuffer()) as unknown as ArrayBuffer);
}

describe('Excel workbook', () => {
  it('round-trips: export then import gives back the same definitions', async () => {
    const second: CrfDefinition = {
      id: 7,
      title: '不良事件/随访: 第[1]次',
      option: { cols: 3 },
      children: [
        item('listGroup', 'ae', '不良事件', {}, [
          item('input', 'ae_term', '事件名称', { required: 1 }),
          item('radio', 'ae_grade', '分级', { optionsValue: '1,2,3,4,5', optionsText: '1级,2级,3级,4级,5级' }),
          item('date', 'ae_start', '开始日期', { showStyle: 'pastTime', legacy: { colour: 'red' } } as never),
        ]),
        item('int', 'ae_count', '事件数', { calc: 'count(ae_term)', validate: { min: 0, step: 1 } as never }),
      ],
    };
    const bytes = await exportExcel([baselineCrf(), second]);
    const result = await importExcel(bytes);
    expect(result.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(result.definitions).toEqual([baselineCrf(), { ...second, id: 7 }]);
  });

  it('a title Excel refuses as a sheet name (a quote left at an end once spaces go) exports and round-trips', async () => {
    const quoted: CrfDefinition[] = ["' '基", "基' '", "''", ' 表单 '].map((title, i) => ({
      id: `f${i}`,
      title,
      option: {},
      children: [item('input', `q${i}`, '基')],
    }));
    const bytes = await exportExcel(quoted);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    expect(workbook.worksheets.map((w) => w.name)).toEqual(expect.arrayContaining(['基', '基(2)', '表单', '表单(2)']));
    const result = await importExcel(bytes);
    expect(result.issues).toEqual([]);
    expect(result.definitions).toEqual(quoted);
  });

  it('the English title (titleEn) has its own column and round-trips', async () => {
    const bilingual: CrfDefinition = {
      id: 'vs',
      title: '生命体征',
      option: {},
      children: [item('real', 'weight', '体重', { titleEn: 'Body weight' })],
    };
    const bytes = await exportExcel([bilingual]);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets.find((w) => w.getRow(1).values.toString().includes('英文标题'));
    expect(sheet).toBeDefined();
    const result = await importExcel(bytes);
    expect(result.issues).toEqual([]);
    expect(result.definitions).toEqual([bilingual]);
  });

  it('the blank template has the column guide, an empty form sheet and a worked example that imports', async () => {
    const bytes = await createExcelTemplate(baselineCrf());
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    expect(workbook.worksheets.map((s) => s.name)).toEqual(['说明', '表单列表', '新表单', '示例']);
    expect(String(workbook.getWorksheet('新表单')!.getCell('D1').value)).toBe('类型（type）');
    expect(workbook.getWorksheet('新表单')!.getCell('D2').dataValidation).toMatchObject({ type: 'list' });
    const result = await importExcel(bytes);
    expect(result.ok).toBe(true);
    expect(result.definitions).toEqual([baselineCrf()]);
    expect(result.issues.map(formatImportIssue)).toEqual(['表单 新表单：工作表没有题目，已跳过']);
  });

  it('reads a workbook an author typed by hand: Chinese headers and type names, depth nesting, checks as lines', async () => {
    const bytes = await workbookBytes((workbook) => {
      const sheet = workbook.addWorksheet('生命体征');
      sheet.addRow([
        '层级',
        '名称',
        '标题',
        '类型',
        '选项值',
        '选项文字',
        '必填',
        '单位',
        '最小值',
        '最大值',
        '触发题目',
        '触发选项',
        '计算公式',
        '核查',
        '男性参考下限',
        '男性参考上限',
      ]);
      sheet.addRow([1, 'vs', '生命体征', '分区']);
      sheet.addRow([2, 'sex', '性别', '单选', '1,2', '男,女', 1]);
      sheet.addRow([
        2,
        'sbp',
        '收缩压',
        '整数',
        null,
        null,
        1,
        'mmHg',
        50,
        250,
        null,
        null,
        null,
        'sbp > dbp => 收缩压应大于舒张压\n警告: sbp < 180 => 收缩压过高，请核实',
        90,
        140,
      ]);
      sheet.addRow([2, 'dbp', '舒张压', '整数', null, null, 1, 'mmHg', 30, 150]);
      sheet.addRow([
        2,
        'map',
        '平均动脉压',
        '小数',
        null,
        null,
        null,
        'mmHg',
        null,
        null,
        null,
        null,
        'round((sbp + 2 * dbp) / 3, 1)',
      ]);
      sheet.addRow([2, 'preg', '是否妊娠', '单选', '1,0', '是,否', null, null, null, null, 'sex', '1']);
    });
    const result = await importExcel(bytes);
    expect(result.issues).toEqual([]);
    const [definition] = result.definitions;
    expect(definition!.title).toBe('生命体征');
    expect(definition!.children[0]!.children.map((c) => c.name)).toEqual(['sex', 'sbp', 'dbp', 'map', 'preg']);
    const state = evaluateForm(definition!, { sex: '1', sbp: '190', dbp: '100' }, context);
    expect(state.values.map).toBe('130');
    expect(state.items.preg!.visible).toBe(false);
    expect(state.items.sbp!.range).toBe('high');
    expect(state.warnings.map((w) => w.message)).toEqual(['收缩压过高，请核实']);
    expect(
      evaluateForm(definition!, { sex: '2', sbp: '90', dbp: '100' }, context).errors.map((e) => e.message),
    ).toEqual(['收缩压应大于舒张压']);
  });

  it('reports mistakes with the sheet and row, and refuses the workbook', async () => {
    const bytes = await workbookBytes((workbook) => {
      const sheet = workbook.addWorksheet('随访');
      sheet.addRow([
        '层级（depth）',
        '名称（name）',
        '标题（title）',
        '类型（type）',
        '计算公式（calc）',
        '核查（checks）',
        '颜色',
      ]);
      sheet.addRow([1, 'a', 'A', '单选框']);
      sheet.addRow([3, 'b', 'B', '整数']);
      sheet.addRow([1, 'c', 'C', '复合题']);
      sheet.addRow([1, 'd', 'D', '整数', 'missing + 1']);
      sheet.addRow([1, 'e', 'E', '整数', null, '没有箭头']);
    });
    const result = await importExcel(bytes);
    expect(result.ok).toBe(false);
    const messages = result.issues.map(formatImportIssue);
    expect(messages).toEqual(
      expect.arrayContaining([
        '表单 随访 第 1 行：未知的列“颜色”，已忽略',
        '表单 随访 第 3 行 字段 b：层级 3 无效：应为 1 到 2 之间的整数',
        '表单 随访 第 4 行 字段 c：未知的题目类型“复合题”',
        '表单 随访 第 6 行 字段 e：核查格式应为“表达式 => 提示”：没有箭头',
        '表单 随访 第 2 行 字段 a：children[0].option.optionsValue（a）：选择题缺少选项（optionsValue）',
        '表单 随访 第 5 行 字段 d：children[1].option.calc（d）：表达式引用的题目不存在：missing',
      ]),
    );
  });

  it('refuses bytes that are not a workbook', async () => {
    const result = await importExcel(new TextEncoder().encode('not a zip'));
    expect(result.ok).toBe(false);
    expect(result.issues[0]!.message).toMatch(/无法读取 Excel 文件/);
  });
});

describe('Excel template default', () => {
  it('ships the worked example of every item type when no example is given', async () => {
    const { exampleCrf } = await import('../example-crf.js');
    const result = await importExcel(await createExcelTemplate());
    expect(result.ok).toBe(true);
    expect(result.definitions).toEqual([exampleCrf()]);
  });
});
