import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode, ItemOption, ItemType } from '../crf-definition.schema.js';
import { CRF_MSG } from '../crf-messages.js';
import { formatImportIssue } from './import-result.js';
import { exportRedcapDictionary, REDCAP_COLUMNS } from './redcap-export.js';
import { importRedcapDictionary } from './redcap.js';

const node = (
  type: ItemType,
  name: string,
  title: string,
  option: ItemOption = {},
  children: CrfNode[] = [],
): CrfNode => ({
  name,
  title,
  type,
  option,
  children,
});
const RECORD_ID = node('input', 'record_id', 'Record ID');
const form = (children: CrfNode[], extra: Partial<CrfDefinition> = {}): CrfDefinition => ({
  id: 'visit',
  title: 'visit',
  option: {},
  children: [RECORD_ID, ...children],
  ...extra,
});

/** The dictionary's rows as objects keyed by column, and the issues as text. */
function exported(definitions: CrfDefinition[]) {
  const { csv, issues } = exportRedcapDictionary(definitions);
  const parsed = Papa.parse<string[]>(csv, { skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  const [header, ...rows] = parsed.data;
  expect(header).toEqual([...REDCAP_COLUMNS]);
  const keys = ['variable', 'form', 'section', 'type', 'label', 'choices', 'note', 'validation', 'min', 'max'] as const;
  const more = [
    'identifier',
    'branching',
    'required',
    'alignment',
    'question',
    'matrix',
    'ranking',
    'annotation',
  ] as const;
  const byName = new Map(
    rows.map((cells) => [
      cells[0]!,
      Object.fromEntries([...keys, ...more].map((k, i) => [k, cells[i] ?? ''])) as Record<
        (typeof keys)[number] | (typeof more)[number],
        string
      >,
    ]),
  );
  return { csv, rows, byName, issues: issues.map(formatImportIssue) };
}

describe('REDCap data dictionary export', () => {
  it("writes REDCap's 18 columns, every cell quoted, one Form Name per definition", () => {
    const { csv, rows } = exported([
      form([node('input', 'note', '说明, 含"引号"\n和换行')]),
      { id: 'labs', title: 'labs', option: {}, children: [node('int', 'alt', 'ALT')] },
    ]);
    expect(csv.split('\r\n')[0]).toBe(REDCAP_COLUMNS.map((c) => `"${c}"`).join(','));
    expect(rows.map((r) => [r[0], r[1]])).toEqual([
      ['record_id', 'visit'],
      ['note', 'visit'],
      ['alt', 'labs'],
    ]);
    expect(rows[1]![4]).toBe('说明, 含"引号"\n和换行');
    expect(rows.every((r) => r.length === 18)).toBe(true);
  });

  it.each<
    [
      string,
      ItemType,
      ItemOption,
      Partial<Record<'type' | 'validation' | 'choices' | 'min' | 'max' | 'annotation' | 'note' | 'label', string>>,
    ]
  >([
    ['input', 'input', {}, { type: 'text', validation: '' }],
    ['text', 'text', {}, { type: 'text', validation: '' }],
    ['int', 'int', {}, { type: 'text', validation: 'integer' }],
    ['real', 'real', {}, { type: 'text', validation: 'number' }],
    ['real with precision 2', 'real', { validate: { precision: 2 } }, { type: 'text', validation: 'number_2dp' }],
    ['number', 'number', {}, { type: 'text', validation: 'number' }],
    ['date', 'date', {}, { type: 'text', validation: 'date_ymd' }],
    ['date holding a time', 'date', { itemType: 'datetime' }, { validation: 'datetime_seconds_ymd' }],
    ['datetime', 'datetime', {}, { type: 'text', validation: 'datetime_seconds_ymd' }],
    ['datetime to the minute', 'datetime', { format: 'yyyy-MM-dd HH:mm' }, { validation: 'datetime_ymd' }],
    ['time', 'time', {}, { type: 'text', validation: 'time_hh_mm_ss' }],
    ['time HH:mm', 'time', { format: 'Hour' }, { type: 'text', validation: 'time' }],
    ['partial date', 'partialDate', {}, { type: 'text', validation: '', note: '日期：yyyy-MM-dd，未知部分写 UK' }],
    ['date of year and month', 'date', { format: 'yyyy-MM' }, { validation: '', note: '日期：yyyy-MM，未知部分写 UK' }],
    ['date shown day first in REDCap', 'date', { dateOrder: 'dmy' }, { validation: 'date_dmy' }],
    ['datetime shown month first', 'datetime', { dateOrder: 'mdy' }, { validation: 'datetime_seconds_mdy' }],
    ['radio', 'radio', { optionsValue: '1,2', optionsText: '男,女' }, { type: 'radio', choices: '1, 男 | 2, 女' }],
    [
      'select',
      'select',
      { optionsValue: 'BJ,SH', optionsText: '北京,上海' },
      { type: 'dropdown', choices: 'BJ, 北京 | SH, 上海' },
    ],
    ['checkbox', 'checkbox', { optionsValue: '1,2', optionsText: 'a,b' }, { type: 'checkbox', choices: '1, a | 2, b' }],
    ['multi-select', 'multiSelect', { optionsValue: 'a,b', optionsText: 'A,B' }, { type: 'checkbox' }],
    ['yes/no radio', 'radio', { optionsValue: '1,0', optionsText: '是,否' }, { type: 'yesno', choices: '' }],
    [
      'true/false radio',
      'radio',
      { optionsValue: '1,0', optionsText: '正确,错误' },
      { type: 'truefalse', choices: '' },
    ],
    ['textarea', 'textarea', {}, { type: 'notes' }],
    ['slider', 'slider', { valueMin: 0, valueMax: 10 }, { type: 'slider', validation: 'number', min: '0', max: '10' }],
    ['file upload', 'fileUpload', {}, { type: 'file' }],
    ['image upload', 'imageUpload', {}, { type: 'file' }],
    ['video upload', 'videoUpload', {}, { type: 'file' }],
    ['calc', 'real', { calc: 'a * 2', readOnly: 1 }, { type: 'calc', choices: '[a] * 2', annotation: '' }],
    [
      'calc rounded by its converter',
      'real',
      { calc: 'a / 3', format: 'precision:1:U' },
      { type: 'calc', choices: 'roundup([a] / 3, 1)' },
    ],
    [
      'calculated text',
      'input',
      { calc: 'concat(a, "kg")' },
      { type: 'text', annotation: "@CALCTEXT(concat([a], 'kg'))" },
    ],
    ['email', 'input', { validate: { type: 'email' } }, { validation: 'email' }],
    [
      'phone',
      'input',
      { validate: { type: 'phone' } },
      { validation: '', note: '中国大陆手机号（11位）', annotation: '@ECRF-PHONE' },
    ],
    [
      'choices with codes REDCap refuses',
      'checkbox',
      { optionsValue: 'L1/2,L2/3,l1_2,a.b', optionsText: 'L1/2,L2/3,x,y' },
      { type: 'checkbox', choices: 'c1, L1/2 | L2_3, L2/3 | l1_2, x | a.b, y' },
    ],
    [
      'title with a style',
      'title',
      { showStyle: 'color: red' },
      { type: 'descriptive', label: '<div style="color: red">X</div>' },
    ],
    ['link', 'link', { url: '/icf.pdf' }, { type: 'descriptive', label: '<a href="/icf.pdf" target="_blank">X</a>' }],
    ['letters only', 'input', { validationEx: '^[A-Za-z]+$' }, { validation: 'alpha_only' }],
    [
      'minutes:seconds',
      'input',
      { validationEx: '^[0-5]\\d:[0-5]\\d$', validationErrorMsg: '请按 分:秒 填写，如 05:30' },
      { validation: 'time_mm_ss' },
    ],
    ['text length', 'textarea', { validate: { max: 500 } }, { annotation: '@CHARLIMIT=500' }],
    ['placeholder', 'input', { placeholder: '如 5.5' }, { annotation: "@PLACEHOLDER='如 5.5'" }],
    ['description and units', 'real', { description: '空腹', units: 'mmol/L' }, { note: '空腹；单位：mmol/L' }],
  ])('maps %s to its REDCap field type and validation', (_label, type, option, expected) => {
    const items = [node('real', 'a', 'A'), node(type, 'x', 'X', option)];
    const { byName } = exported([form(items)]);
    expect(byName.get('x')).toMatchObject(expected);
  });

  it('maps flags and defaults to REDCap columns and action tags', () => {
    const { byName } = exported([
      form([
        node('input', 'name', '姓名', { required: 1, identifier: 1 }),
        node('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女', itemLayout: 'horizontal' }),
        node('date', 'seen', '就诊日期', { defaultValue: 'now', readOnly: 1 }),
        node('datetime', 'at', '时间', { defaultValue: 'now', notDisplayed: 1 }),
        node('input', 'site', '中心', { defaultValue: "O'Hara" }),
      ]),
    ]);
    expect(byName.get('name')).toMatchObject({ required: 'y', identifier: 'y' });
    expect(byName.get('sex')!.alignment).toBe('RH');
    expect(byName.get('seen')!.annotation).toBe('@READONLY @TODAY');
    expect(byName.get('at')!.annotation).toBe('@HIDDEN @NOW');
    expect(byName.get('site')!.annotation).toBe('@DEFAULT="O\'Hara"');
  });

  it("writes the importer's soft bounds back as Text Validation Min/Max, and reports hard bounds as softened", () => {
    const { byName, issues } = exported([
      form([
        node('real', 'weight', '体重', {
          checks: [
            { expression: 'weight >= 20', message: CRF_MSG.belowMin(20), severity: 'warning' },
            { expression: 'weight <= 300', message: CRF_MSG.aboveMax(300), severity: 'warning' },
          ],
        }),
        node('date', 'dob', '出生日期', {
          checks: [
            { expression: 'dob >= "1900-01-01"', message: '不能早于 1900-01-01', severity: 'warning' },
            { expression: 'dob <= today()', message: '不能晚于 today', severity: 'warning' },
          ],
        }),
        node('int', 'sbp', '收缩压', {
          validate: { min: 50, max: 250 },
          checks: [{ expression: 'sbp > dbp', message: '收缩压应大于舒张压', severity: 'error' }],
        }),
        node('int', 'dbp', '舒张压'),
        node('date', 'visit', '访视日期', { showStyle: 'pastTime' }),
      ]),
    ]);
    expect(byName.get('weight')).toMatchObject({ min: '20', max: '300' });
    expect(byName.get('dob')).toMatchObject({ min: '1900-01-01', max: 'today' });
    expect(byName.get('sbp')).toMatchObject({ min: '50', max: '250' });
    expect(byName.get('visit')!.max).toBe('today');
    expect(issues.filter((i) => /weight|dob/.test(i))).toEqual([]);
    expect(issues).toEqual(
      expect.arrayContaining([
        '表单 visit 字段 sbp：最小值 50 导出为 REDCap 的范围：REDCap 的范围只提示、不阻止保存',
        '表单 visit 字段 sbp：REDCap 数据字典不能写跨题核查，核查“收缩压应大于舒张压”（sbp > dbp）未导出（可在 REDCap 的数据质量规则中手工设置）',
        '表单 visit 字段 visit：不能晚于今天导出为 REDCap 的范围 max = today：REDCap 只提示、不阻止保存',
      ]),
    );
  });

  it.each([
    // ours → REDCap
    ['checked(c, "2") == 1', '[c(2)] = 1'],
    ['checked(c, "2")', '[c(2)]'],
    ['isblank(t)', "[t] = ''"],
    ['not isblank(t)', "[t] <> ''"],
    ['not isblank(r) and r == "1"', "[r] = '1'"],
    ['isblank(r) or r != "1"', "[r] <> '1'"],
    ['not isblank(n) and n >= 18', '[n] >= 18'],
    ['isblank(d) or d < "2024-01-01"', "[d] < '2024-01-01'"],
    ['n >= 18', '[n] >= 18'],
    ['d < "2024-01-01"', "[d] <> '' and [d] < '2024-01-01'"],
    ['not (n >= 18)', '[n] < 18'],
    ['not (r == "1")', "[r] <> '' and [r] <> '1'"],
    ['t != "x"', "[t] <> '' and [t] <> 'x'"],
    ['c == "2"', "[c(2)] = '1'"],
    ['isblank(c)', "[c(1)] = '0' and [c(2)] = '0'"],
    ['r == "1" and (n > 1 or t == "a")', "[r] = '1' and ([n] > 1 or [t] = 'a')"],
  ])('prints the condition %s as REDCap logic %s', (showIf, logic) => {
    const items = [
      node('input', 't', 'T'),
      node('int', 'n', 'N'),
      node('date', 'd', 'D'),
      node('radio', 'r', 'R', { optionsValue: '1,2', optionsText: '一,二' }),
      node('checkbox', 'c', 'C', { optionsValue: '1,2', optionsText: '一,二' }),
      node('input', 'z', 'Z', { showIf }),
    ];
    expect(exported([form(items)]).byName.get('z')!.branching).toBe(logic);
  });

  it.each([
    ['datediff(a, b, "d")', "datediff([a], [b], 'd', 'ymd', true)"],
    ['abs(datediff(a, b, "y"))', "datediff([a], [b], 'y', 'ymd')"],
    ['datediff(a, today(), "w")', "datediff([a], 'today', 'd', 'ymd', true) / 7"],
    ['round(n / 3)', 'round([n] / 3, 0)'],
    ['n % 2 + n ^ 2', 'mod([n], 2) + ([n])^(2)'],
    ['sum(n, m) + mean(n, m) + max(n, 1)', 'sum([n], [m]) + mean([n], [m]) + max([n], 1)'],
    ['if(n > 5, 1, 0)', 'if([n] > 5, 1, 0)'],
    ['len(t) + year(a)', 'length([t]) + year([a])'],
    ['-n + -2', '-1 * [n] + -2'],
    ['bmi(n, m)', '[n] / (([m] / 100)^(2))'],
  ])('prints the calculation %s as %s', (calc, redcap) => {
    const items = [
      node('date', 'a', 'A'),
      node('date', 'b', 'B'),
      node('int', 'n', 'N'),
      node('int', 'm', 'M'),
      node('input', 't', 'T'),
      node('real', 'z', 'Z', { calc }),
    ];
    expect(exported([form(items)]).byName.get('z')!.choices).toBe(redcap);
  });

  it('reports what REDCap logic cannot hold and leaves the item without it', () => {
    const { byName, issues } = exported([
      form([
        node('int', 'n', 'N'),
        node('input', 'z', 'Z', { showIf: 'today() > "2024-01-01"' }),
        node('real', 'w', 'W', { calc: 'count(n)' }),
        node('date', 'b', 'B'),
        node('int', 'age', '年龄', { calc: 'age(b)' }),
      ]),
    ]);
    expect(byName.get('z')!.branching).toBe('');
    expect(byName.get('w')).toMatchObject({ type: 'text', annotation: '@READONLY' });
    expect(byName.get('age')!.choices).toBe("rounddown(datediff([b], 'today', 'y', 'ymd', true), 0)");
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/字段 z：显示条件无法写成 REDCap 分支逻辑（函数 today\(\) 在 REDCap 中没有对应）/),
        expect.stringMatching(
          /字段 w：计算公式无法写成 REDCap 的计算（函数 count\(\) 在 REDCap 中没有对应），导出为只读字段/,
        ),
        expect.stringMatching(/字段 age：age\(\) 已改写为 REDCap 的 datediff/),
      ]),
    );
  });

  it('prints a checkbox inside what looks like an imported comparison option by option (REDCap has no [c] of its own)', () => {
    const showIf = '(isblank(c) or c != "1") and isblank(a)';
    const { byName, issues } = exported([
      form([
        node('int', 'a', 'A'),
        node('checkbox', 'c', 'C', { optionsValue: '1,2', optionsText: '一,二' }),
        node('input', 'z', 'Z', { showIf }),
      ]),
    ]);
    expect(issues).toEqual([]);
    expect(byName.get('z')!.branching).toBe(
      "([c(1)] = '0' and [c(2)] = '0' or [c(1)] = '0' and ([c(1)] = '1' or [c(2)] = '1')) and [a] = ''",
    );
  });

  it('turns triggers into branching logic on the option codes, and carries container conditions down to each field', () => {
    const { byName } = exported([
      form([
        node('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
        node('checkbox', 'hx', '既往史', { optionsValue: '1,2,99', optionsText: '高血压,糖尿病,其他' }),
        node('date', 'lmp', '末次月经', { trig: 'sex', tindex: '1' }),
        node('int', 'dm_years', '病程', { trigex: 'hx:1,hx:2' }),
        node('section', 'preg', '妊娠', { showIf: 'not isblank(sex) and sex == "2"' }, [
          node('int', 'weeks', '孕周', { showIf: 'weeks > 0' }),
        ]),
      ]),
    ]);
    expect(byName.get('lmp')!.branching).toBe("[sex] = '2'");
    expect(byName.get('dm_years')!.branching).toBe("[hx(2)] = '1' or [hx(99)] = '1'");
    expect(byName.get('weeks')!.branching).toBe("[sex] = '2' and [weeks] > 0");
  });

  it('makes names REDCap-legal and unique in the project, and says so', () => {
    const { byName, rows, issues } = exported([
      { title: 'Visit Form', option: {}, children: [node('input', 'ID', 'ID'), node('int', '体重', '体重')] },
      { title: '随访', option: {}, children: [node('input', 'id', 'ID'), node('int', 'redcap_x', 'x')] },
    ]);
    expect(rows.map((r) => `${r[1]}.${r[0]}`)).toEqual([
      'visit_form.id',
      'visit_form.visit_form_field',
      'form_2.id_2',
      'form_2.v_redcap_x',
    ]);
    expect(byName.get('id_2')!.label).toBe('ID');
    expect(issues).toEqual(
      expect.arrayContaining([
        '表单 Visit Form：REDCap 表单名只能用小写字母、数字和下划线：表单“Visit Form”导出为 visit_form（REDCap 按表单名显示表单标题）',
        '表单 Visit Form 字段 ID：REDCap 变量名只能用小写字母、数字和下划线且在项目中唯一：ID 导出为 id',
        '表单 随访 字段 id：REDCap 变量名只能用小写字母、数字和下划线且在项目中唯一：id 导出为 id_2',
      ]),
    );
  });

  it('puts a record ID first when the first field cannot be REDCap’s record identifier', () => {
    const { rows, issues } = exported([
      {
        id: 'f',
        title: 'f',
        option: {},
        children: [node('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' })],
      },
    ]);
    expect(rows.map((r) => r[0])).toEqual(['record_id', 'sex']);
    expect(issues).toEqual([
      '表单 f 字段 record_id：REDCap 的第一个字段是记录标识（文本字段），本表单首个字段不适合，已在最前面加入 record_id',
    ]);
  });

  it('writes sections as section headers and a table-style group of like radios as a matrix', () => {
    const choices = { optionsValue: '0,1,2', optionsText: '无,轻,重' };
    const { byName } = exported([
      form([
        node('section', 'vs', '生命体征 <必填>', {}, [node('int', 'sbp', '收缩压'), node('int', 'dbp', '舒张压')]),
        node('section', 'sx', '症状', {}, [
          node('group', 'symptoms', '', { showStyle: 'table' }, [
            node('radio', 'cough', '咳嗽', choices),
            node('radio', 'fever', '发热', choices),
          ]),
        ]),
      ]),
    ]);
    expect(byName.get('sbp')!.section).toBe('生命体征 &lt;必填&gt;');
    expect(byName.get('dbp')!.section).toBe('');
    expect(byName.get('cough')).toMatchObject({ section: '症状', matrix: 'symptoms' });
    expect(byName.get('fever')).toMatchObject({ section: '', matrix: 'symptoms' });
  });

  it('exports a list group as a form of its own, crfRules as calculations and an addition box as a field', () => {
    const { byName, issues } = exported([
      form(
        [
          node('checkbox', 'hx', '既往史', {
            optionsValue: '1,99',
            optionsText: '高血压,其他',
            addition: '请注明',
            additionIndex: '1',
            showIf: 'not isblank(record_id)',
          }),
          node('title', '', '仅在有高血压时', { trig: 'hx', tindex: '0' }),
          node('listGroup', 'meds', '合并用药', {}, [
            node('real', 'dose', '剂量'),
            node('int', 'times', '次数'),
            node('real', 'daily', '日剂量'),
          ]),
          node('real', 'total', '合计', { calc: 'sum(daily)' }),
        ],
        { crfRules: [{ target: 'daily', formula: 'dose * times' }] },
      ),
    ]);
    expect(byName.get('dose')!.form).toBe('visit_meds');
    expect(byName.get('daily')).toMatchObject({ form: 'visit_meds', type: 'calc', choices: '[dose] * [times]' });
    // The addition box shows while its item shows and the option is chosen; a title keeps its trigger.
    expect(byName.get('hx_addition')).toMatchObject({
      type: 'text',
      label: '请注明',
      branching: "[record_id] <> '' and [hx(99)] = '1'",
    });
    expect(byName.get('visit_desc_1')!.branching).toBe("[hx(1)] = '1'");
    expect(byName.get('total')!.annotation).toBe('@READONLY');
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/字段 meds：列表组“合并用药”导出为单独的表单 visit_meds/),
        expect.stringMatching(
          /字段 total：计算公式无法写成 REDCap 的计算（引用的题目 daily 在 REDCap 中没有对应字段）/,
        ),
        expect.stringMatching(/字段 hx：附加项“请注明”导出为单独的文本字段 hx_addition/),
      ]),
    );
  });

  it('reports every option REDCap has no place for', () => {
    const { issues } = exported([
      form([
        node('real', 'hb', '血红蛋白', { refValueMaleMin: 130, width: 200, hidden: 1 }),
        node('input', 'id_no', '身份证号', { validate: { type: 'idcard' }, validationEx: '^\\d{17}[\\dX]$' }),
        node('title', '', '以下由研究者填写'),
        node('slider', 'pain', '疼痛', { valueMin: 0, valueMax: 10, valueStep: 2 }),
        node('section', 'vs', '生命体征', {}, [node('int', 'sbp', '收缩压')]),
        node('int', 'after', '分区之后'),
      ]),
    ]);
    expect(issues).toEqual(
      expect.arrayContaining([
        '表单 visit 字段 hb：显示设置 width 在 REDCap 中没有对应，未导出',
        '表单 visit 字段 hb：REDCap 没有参考范围，参考范围未导出',
        '表单 visit 字段 hb：“隐藏”（不适用、清空值）导出为 REDCap 的 @HIDDEN：REDCap 只是不显示，值仍保存',
        '表单 visit 字段 id_no：REDCap 没有身份证号校验，导出为无校验文本',
        '表单 visit 字段 id_no：REDCap 数据字典不能写自定义正则校验，^\\d{17}[\\dX]$ 未导出',
        '表单 visit：标题没有名称，REDCap 的说明字段需要变量名：命名为 visit_desc_1',
        '表单 visit 字段 pain：REDCap 的滑块步长固定为 1，步长 2 未导出',
        '表单 visit 字段 after：题目“分区之后”不在分区中，但在分区之后：REDCap 的分区延续到下一个分区标题，它在 REDCap 中显示在上一分区之下',
      ]),
    );
  });

  it('imports back what it exported: calculated text, character limits, placeholders, defaults, @HIDDEN and labels with HTML characters', () => {
    const definition = form([
      node('input', 'first', '名 <a&b>', { validate: { max: 20 }, placeholder: '名' }),
      node('input', 'full', '全名', { calc: 'concat(first, "·")', readOnly: 1 }),
      node('input', 'site', '中心', { defaultValue: "O'Hara", notDisplayed: 1 }),
      node('datetime', 'at', '时间', { defaultValue: 'now', readOnly: 1 }),
    ]);
    const result = importRedcapDictionary(exportRedcapDictionary([definition]).csv);
    expect(result.issues.map(formatImportIssue)).toEqual([]);
    expect(result.definitions[0]!.children).toEqual(definition.children);
  });
});
