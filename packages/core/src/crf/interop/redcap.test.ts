import { describe, expect, it } from 'vitest';
import { evaluateForm } from '../evaluate-form.js';
import { evaluateExpression } from '../expression/index.js';
import { REDCAP_DICTIONARY, REDCAP_HEADER, redcapRow } from '../test/redcap-dictionary.js';
import { formatImportIssue } from './import-result.js';
import { importRedcapDictionary, normalizeDateBound, translateRedcapLogic, type RedcapFieldKind } from './redcap.js';

const HEADER = REDCAP_HEADER;
const row = redcapRow;
const DICTIONARY = REDCAP_DICTIONARY;

describe('REDCap data dictionary import', () => {
  const result = importRedcapDictionary(DICTIONARY);
  const [demographics, phq] = result.definitions;
  const warnings = result.issues.map(formatImportIssue);
  const byName = (name: string) => {
    const walk = (nodes: typeof demographics.children): (typeof demographics.children)[number] | undefined => {
      for (const n of nodes) {
        if (n.name === name) return n;
        const found = walk(n.children);
        if (found) return found;
      }
      return undefined;
    };
    return walk([...demographics!.children, ...phq!.children]);
  };

  it('imports both forms, linted, with no error', () => {
    expect(result.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.definitions.map((d) => d.title)).toEqual(['demographics', 'phq']);
  });

  it('maps every field type', () => {
    const types = Object.fromEntries(
      [
        'record_id',
        'dob',
        'sex',
        'pregnant',
        'age',
        'weight',
        'height',
        'email',
        'smoke',
        'comorb',
        'consent',
        'pain',
        'notes',
        'ecg',
        'info',
        'visit_time',
        'site',
      ].map((n) => [n, byName(n)!.type]),
    );
    expect(types).toEqual({
      record_id: 'input',
      dob: 'date',
      sex: 'radio',
      pregnant: 'radio',
      age: 'real',
      weight: 'real',
      height: 'int',
      email: 'input',
      smoke: 'select',
      comorb: 'checkbox',
      consent: 'radio',
      pain: 'slider',
      notes: 'textarea',
      ecg: 'fileUpload',
      info: 'title',
      visit_time: 'time',
      site: 'input',
    });
    expect(byName('sex')!.option).toMatchObject({ optionsValue: '1,2', optionsText: '男,女' });
    expect(byName('pregnant')!.option).toMatchObject({ optionsValue: '1,0', optionsText: '是,否' });
    expect(byName('consent')!.option).toMatchObject({ optionsValue: '1,0', optionsText: '正确,错误', required: 1 });
    // REDCap's min and max are soft (the page warns, the value may stay): warning checks, not blocking bounds.
    expect(byName('weight')!.option).toMatchObject({ validate: { precision: 1 }, required: 1 });
    expect(byName('weight')!.option.validate).not.toHaveProperty('min');
    expect(byName('weight')!.option.checks).toEqual([
      { expression: 'weight >= 20', message: '不能小于20', severity: 'warning' },
      { expression: 'weight <= 300', message: '不能大于300', severity: 'warning' },
    ]);
    expect(byName('email')!.option.validate).toEqual({ type: 'email' });
    expect(byName('notes')!.option).toMatchObject({ description: '可选', itemLayout: 'vertical' });
    expect(byName('name')!.option).toMatchObject({ identifier: 1, required: 1 });
    expect(byName('pain')!.option).toMatchObject({ valueMin: 0, valueMax: 100, description: '无痛 … 剧痛' });
    expect(byName('visit_time')!.option.format).toBe('Hour');
    expect(byName('created')!.option).toMatchObject({ defaultValue: 'now', readOnly: 1 });
    expect(byName('dob')!.option.checks).toEqual([
      { expression: 'dob >= "1900-01-01"', message: '不能早于 1900-01-01', severity: 'warning' },
      { expression: 'dob <= today()', message: '不能晚于 today', severity: 'warning' },
    ]);
    expect(byName('info')!.title).toBe('以下由研究者填写');
  });

  it('puts fields under their section headers and a matrix group under one group node', () => {
    expect(demographics!.children.map((n) => `${n.type}:${n.title}`)).toEqual([
      'input:Record ID',
      'input:姓名',
      'section:基本信息',
      'section:体格检查',
      'section:合并症',
    ]);
    const matrixSection = phq!.children[0]!;
    expect(matrixSection.title).toBe('PHQ-2 过去两周');
    expect(matrixSection.children[0]).toMatchObject({ type: 'group', name: 'phq' });
    expect(matrixSection.children[0]!.children.map((c) => c.name)).toEqual(['phq_1', 'phq_2']);
  });

  it('translates branching logic and calculations into showIf and calc', () => {
    expect(byName('pregnant')!.option.showIf).toBe(
      'not isblank(sex) and sex == "2" and (not isblank(age) and age >= 15)',
    );
    expect(byName('age')!.option.calc).toBe('rounddown(abs(datediff(dob, "today", "y")), 0)');
    expect(byName('bmi')!.option.calc).toBe('round(weight * 10000 / (height * height), 1)');
    expect(byName('comorb_other')!.option.showIf).toBe('checked(comorb, "3") == "1"');
    expect(byName('dm_dx')!.option.showIf).toBe('checked(comorb, "2") == "1" or checked(comorb, "1") == "1"');
    expect(byName('phq_total')!.option.calc).toBe('sum(phq_1, phq_2)');
  });

  it('reports per field what cannot be translated, never silently', () => {
    const expected = [
      /表单 demographics 第 26 行 字段 event_ref：分支逻辑无法转换，该字段将始终显示（引用了其他事件的字段/,
      /字段 phq_ref：分支逻辑无法转换.*引用的字段不在本表单中：sex/,
      /字段 site：SQL 字段的选项来自数据库查询，无法转换/,
      /字段 sign：签名字段已作为文件上传题导入/,
      /字段 mobile：REDCap 的 phone 校验按北美号码/,
      /字段 comorb：选项文字中的英文逗号已改为中文逗号/,
      /字段 notes：动作标签 @HIDDEN-SURVEY 无法转换/,
      /字段 info：标签中的 HTML 格式已去除/,
    ];
    for (const pattern of expected) {
      expect(
        warnings.some((w) => pattern.test(w)),
        String(pattern),
      ).toBe(true);
    }
    expect(byName('event_ref')!.option.showIf).toBeUndefined();
    expect(byName('comorb')!.option.optionsText).toBe('高血压,糖尿病,其他， 请注明');
  });

  it('the imported forms evaluate: branching, calculations and checkbox triggers work', () => {
    const context = { now: new Date(Date.UTC(2024, 5, 15, 2)) };
    const state = evaluateForm(
      demographics!,
      { dob: '1990-06-16', sex: '2', weight: '60', height: '160', comorb: ['2'], smoke: '2' },
      context,
    );
    expect(state.values.age).toBe('33');
    expect(state.items.pregnant!.visible).toBe(true);
    expect(state.values.bmi).toBe('23.4');
    expect(state.items.dm_dx!.visible).toBe(true);
    expect(state.items.comorb_other!.visible).toBe(false);
    expect(state.items.packs!.visible).toBe(true);
    const male = evaluateForm(
      demographics!,
      { dob: '1990-06-16', sex: '1', weight: '60', height: '160', dm_dx: '2020-01-01' },
      context,
    );
    expect(male.items.pregnant!.visible).toBe(false);
    expect(male.values.dm_dx).toBeUndefined();
    const future = evaluateForm(demographics!, { dob: '2030-01-01' }, context);
    expect(future.items.dob!.errors).toEqual([]);
    expect(future.items.dob!.warnings).toEqual(['不能晚于 today']);
    const phqState = evaluateForm(phq!, { phq_1: '2', phq_2: '1' }, context);
    expect(phqState.values.phq_total).toBe('3');
    expect(phqState.items.phq_flag!.visible).toBe(true);
  });

  it('translates logic edge cases', () => {
    const known = () => true;
    expect(translateRedcapLogic('[a] <> "" AND [b] = 1', known)).toEqual({
      ok: true,
      expression: 'not isblank(a) and (not isblank(b) and b == 1)',
    });
    expect(translateRedcapLogic('datediff([d1], [d2], "d", true) > 3', known)).toEqual({
      ok: true,
      expression: 'if(datediff(d1, d2, "d") > 3, true, false)',
    });
    expect(translateRedcapLogic('if([a] > 1, 2, 3)', () => 'number')).toEqual({
      ok: true,
      expression: 'if(not isblank(a) and a > 1, 2, 3)',
    });
    expect(translateRedcapLogic('mod([a], 2) = 1 and length([b]) > 3', () => 'number')).toEqual({
      ok: true,
      expression: 'not isblank(a % 2) and a % 2 == 1 and if(len(b) > 3, true, false)',
    });
    expect(translateRedcapLogic('[a:checked] = "1"', known)).toMatchObject({ ok: false });
    expect(translateRedcapLogic('isblankormissingcode([a])', known)).toEqual({
      ok: false,
      reason: 'REDCap 函数 isblankormissingcode() 无法转换',
    });
    expect(translateRedcapLogic('[a] = ', known)).toMatchObject({ ok: false });
  });

  it.each([
    // REDCap logic, x, y, REDCap's answer
    ["[x] <> ''", '', '', false],
    ["[x] <> ''", '3', '', true],
    ["[x] = ''", '', '', true],
    ["[x] = ''", '3', '', false],
    ["[x] = '1'", '', '', false],
    ["[x] = '1'", '1', '', true],
    ["[x] = '1'", '1.0', '', true],
    ["[x] = '1'", '2', '', false],
    ["[x] <> '1'", '', '', true],
    ["[x] <> '1'", '1', '', false],
    ["[x] <> '1'", '2', '', true],
    ['[x] = [y]', '', '', true],
    ['[x] = [y]', '1', '', false],
    ['[x] = [y]', '1', '1', true],
    ['[x] <> [y]', '', '2', true],
    ['[x] <> [y]', '2', '2', false],
    ["not([x] = '1')", '', '', true],
  ])('REDCap equality with blanks: %s with x=%j, y=%j is %s', (logic, x, y, expected) => {
    const translated = translateRedcapLogic(logic, () => true);
    expect(translated.ok).toBe(true);
    const form = {
      id: 'f',
      title: 'f',
      option: {},
      children: [
        { name: 'x', title: 'x', type: 'input' as const, option: {}, children: [] },
        { name: 'y', title: 'y', type: 'input' as const, option: {}, children: [] },
        {
          name: 'shown',
          title: 'shown',
          type: 'input' as const,
          option: { showIf: translated.ok ? translated.expression : '' },
          children: [],
        },
      ],
    };
    const state = evaluateForm(form, { x, y }, { now: new Date(Date.UTC(2024, 5, 15)), gender: null });
    expect(state.items.shown!.visible).toBe(expected);
  });

  it('@HIDDEN hides a field on the page only: its calculation runs, its value is kept, and logic reading it works', () => {
    const csv = [
      HEADER,
      row('record_id', 'infant', '', 'text', 'Record ID'),
      row('birth', 'infant', '', 'text', '出生日期', '', '', 'date_ymd'),
      row('visit', 'infant', '', 'text', '访视日期', '', '', 'date_ymd'),
      row(
        'age_days',
        'infant',
        '',
        'calc',
        '日龄',
        'datediff([birth], [visit], "d", "ymd", true)',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '@HIDDEN',
      ),
      row('feeding', 'infant', '', 'yesno', '是否母乳喂养', '', '', '', '', '', '', '[age_days] < 180'),
    ].join('\n');
    const result = importRedcapDictionary(csv);
    expect(result.ok, JSON.stringify(result.issues)).toBe(true);
    const form = result.definitions[0]!;
    const ageDays = form.children.find((n) => n.name === 'age_days')!;
    expect(ageDays.option).toMatchObject({ notDisplayed: 1 });
    expect(ageDays.option.hidden).toBeUndefined();
    const state = evaluateForm(
      form,
      { birth: '2024-05-01', visit: '2024-06-10' },
      { now: new Date(Date.UTC(2024, 5, 15)), gender: null },
    );
    expect(state.values.age_days).toBe('40');
    expect(state.items.feeding!.visible).toBe(true);
  });

  it('maps REDCap validation types to the nearest type and rule', () => {
    const csv = [
      HEADER,
      row('record_id', 'f', '', 'text', 'Record ID'),
      row('temp', 'f', '', 'text', '体温', '', '', 'number_1dp_comma_decimal', '35,0', '42,0'),
      row('walk', 'f', '', 'text', '步行时间', '', '', 'time_mm_ss'),
      row('mrn', 'f', '', 'text', '病历号', '', '', 'mrn_10d'),
      row('seen', 'f', '', 'text', '就诊时间', '', '', 'datetime_seconds_ymd'),
      row('visit', 'f', '', 'text', '访视日期', '', '', 'date_dmy', '1/2/2020', '31/12/2030'),
      row('initials', 'f', '', 'text', '缩写', '', '', 'alpha_only'),
      row('zip', 'f', '', 'text', '邮编', '', '', 'zipcode'),
      row('ssn', 'f', '', 'text', 'SSN', '', '', 'ssn'),
    ].join('\n');
    const result = importRedcapDictionary(csv);
    expect(result.ok, JSON.stringify(result.issues)).toBe(true);
    expect(result.issues.filter((i) => /无法转换/.test(i.message)).map((i) => i.message)).toEqual([
      '文本校验类型 ssn 无法转换，已作为无校验文本导入',
    ]);
    const byName = (name: string) => result.definitions[0]!.children.find((n) => n.name === name)!;
    expect(byName('temp')).toMatchObject({ type: 'real', option: { validate: { precision: 1 } } });
    expect(byName('temp').option.checks!.map((c) => c.expression)).toEqual(['temp >= 35', 'temp <= 42']);
    expect(byName('walk')).toMatchObject({ type: 'input', option: { validationEx: '^[0-5]\\d:[0-5]\\d$' } });
    expect(byName('mrn').option.validationEx).toBe('^\\d{10}$');
    expect(byName('seen').type).toBe('datetime');
    expect(byName('initials').option.validationEx).toBe('^[A-Za-z]+$');
    expect(byName('zip').option.validationEx).toBe('^\\d{5}(-\\d{4})?$');
    expect(byName('ssn')).toMatchObject({ type: 'input', option: {} });
    expect(byName('visit').option.checks!.map((c) => c.expression)).toEqual([
      'visit >= "2020-02-01"',
      'visit <= "2030-12-31"',
    ]);
  });

  it.each([
    ['1/1/1900', 'date_ymd', '1900-01-01'],
    ['2/3/2020', 'date_mdy', '2020-02-03'],
    ['2/3/2020', 'date_dmy', '2020-03-02'],
    ['2023-8-1 1:01', 'datetime_ymd', '2023-08-01 01:01'],
    ['2023-08-01 01:01:30', 'datetime_seconds_ymd', '2023-08-01 01:01:30'],
    ['today', 'date_ymd', 'today'],
  ])('date bound %s of a %s field is %s', (bound, validation, iso) => {
    expect(normalizeDateBound(bound, validation)).toBe(iso);
  });

  it('refuses a file that is not a data dictionary', () => {
    const result = importRedcapDictionary('name,age\n张三,30\n');
    expect(result.ok).toBe(false);
    expect(result.issues[0]!.message).toMatch(/不是 REDCap 数据字典/);
  });

  it('a dictionary with its header row only says what is missing instead of an empty error list', () => {
    const result = importRedcapDictionary(`${HEADER}\n`);
    expect(result.ok).toBe(false);
    expect(result.issues.map((i) => i.message)).toEqual([
      '数据字典只有列名行，没有任何字段：请从第二行起每行填写一个字段',
    ]);
  });
});

/**
 * docs/crf-format.md §9.3, "REDCap <, <=, >, >= with blanks": each cell is REDCap's answer (REDCap 10+,
 * LogicTester on the server), and the translated expression must give exactly it: true or false, never
 * undecided, so that a negation or an if() around it also agrees with REDCap.
 */
describe('REDCap order comparisons with blanks', () => {
  const answer = (logic: string, kind: RedcapFieldKind, values: Record<string, string>) => {
    const translated = translateRedcapLogic(logic, () => kind);
    if (!translated.ok) throw new Error(translated.reason);
    return evaluateExpression(translated.expression, values, { today: '2024-06-15', now: '2024-06-15 10:00:00' });
  };
  const table: Array<[string, RedcapFieldKind, boolean, boolean, boolean]> = [
    // logic, kind of x, x blank, x = 1, x = 2
    ['[x] < 5', 'number', false, true, true],
    ['[x] <= 1', 'number', false, true, false],
    ['[x] > 1', 'number', false, false, true],
    ['[x] >= 2', 'number', false, false, true],
    ['5 > [x]', 'number', false, true, true],
    ["[x] < ''", 'number', false, false, false],
    ["[x] <= ''", 'number', true, false, false],
    ["[x] > ''", 'number', false, true, true],
    ["[x] >= ''", 'number', true, true, true],
    ['[x] < 5', 'text', true, true, true],
    ['[x] <= 1', 'text', true, true, false],
    ['[x] > 1', 'text', false, false, true],
    ['[x] >= 2', 'text', false, false, true],
    ['5 > [x]', 'text', true, true, true],
    ["[x] < ''", 'text', false, false, false],
    ["[x] <= ''", 'text', true, false, false],
    ["[x] > ''", 'text', false, true, true],
    ["[x] >= ''", 'text', true, true, true],
  ];
  const cells = table.flatMap(([logic, kind, blank, one, two]) => [
    [logic, kind, '', blank] as const,
    [logic, kind, '1', one] as const,
    [logic, kind, '2', two] as const,
  ]);
  it.each(cells)('%s on a %s field with x=%j is %s', (logic, kind, x, expected) => {
    expect(answer(logic, kind, { x })).toBe(expected);
  });

  it.each([
    // Numbers written as text compare as numbers, as REDCap's server does.
    ["[x] > '9'", 'text', '10', true],
    ["[x] > '9'", 'text', '', false],
    ["[x] < '9'", 'text', '10', false],
    ["[x] < '9'", 'text', '', true],
    ["[x] > '9'", 'number', '10', true],
    ["[x] < '9'", 'number', '', false],
    // yyyy-mm-dd dates compare as dates; a blank date is before every date.
    ["[x] < '2024-01-10'", 'text', '', true],
    ["[x] < '2024-01-10'", 'text', '2024-01-09', true],
    ["[x] < '2024-01-10'", 'text', '2024-01-10', false],
    ["[x] >= '2024-01-10'", 'text', '', false],
    ["[x] >= '2024-01-10'", 'text', '2024-02-01', true],
    ["[x] > '2024-01-31'", 'text', '2024-02-01', true],
    ["[x] <= '2024-01-31 08:00'", 'text', '2024-01-31 07:59', true],
  ] as const)('%s on a %s field with x=%j is %s', (logic, kind, x, expected) => {
    expect(answer(logic, kind as RedcapFieldKind, { x })).toBe(expected);
  });

  it.each([
    // Two fields: number fields are false with a blank side; text fields (dates) sort the blank first.
    ['[x] < [y]', 'number', '', '2', false],
    ['[x] < [y]', 'number', '1', '', false],
    ['[x] < [y]', 'number', '', '', false],
    ['[x] < [y]', 'number', '1', '2', true],
    ['[x] >= [y]', 'number', '', '', false],
    ['[x] < [y]', 'text', '', '2024-01-01', true],
    ['[x] < [y]', 'text', '2024-01-01', '', false],
    ['[x] < [y]', 'text', '', '', false],
    ['[x] <= [y]', 'text', '', '', true],
    ['[x] > [y]', 'text', '2024-01-01', '', true],
    ['[x] >= [y]', 'text', '', '2024-01-01', false],
    ['[x] >= [y]', 'text', '2024-01-02', '2024-01-01', true],
    // A calculated side is NaN when an input is blank.
    ['[x] + 1 > 2', 'number', '', '', false],
    ['[x] + 1 > 2', 'number', '2', '', true],
    ['datediff([x], [y], "d", true) > 3', 'text', '2024-01-01', '', false],
    ['datediff([x], [y], "d", true) > 3', 'text', '2024-01-01', '2024-01-10', true],
  ] as const)('%s on %s fields with x=%j, y=%j is %s', (logic, kind, x, y, expected) => {
    expect(answer(logic, kind as RedcapFieldKind, { x, y })).toBe(expected);
  });

  it('a negated comparison agrees with REDCap while its field is blank', () => {
    const translated = translateRedcapLogic('if([x] < 5, 1, 0) + if([d] < "2024-01-01", 10, 0)', (v) =>
      v === 'x' ? 'number' : 'text',
    );
    expect(translated.ok).toBe(true);
    const expression = translated.ok ? translated.expression : '';
    expect(evaluateExpression(`not (${expression} == 10)`, { x: '', d: '' })).toBe(false);
    expect(evaluateExpression(expression, { x: '3', d: '2025-01-01' })).toBe(1);
  });

  it('the importer reads each field kind from its REDCap type and validation', () => {
    const csv = [
      HEADER,
      row('record_id', 'f', '', 'text', 'Record ID'),
      row('age', 'f', '', 'text', '年龄', '', '', 'integer'),
      row('visit', 'f', '', 'text', '访视日期', '', '', 'date_ymd'),
      row('grade', 'f', '', 'radio', '分级', '1, 轻 | 2, 重'),
      row('site', 'f', '', 'dropdown', '中心', 'bj, 北京 | sh, 上海'),
      row('a', 'f', '', 'yesno', 'A', '', '', '', '', '', '', '[age] < 18'),
      row('b', 'f', '', 'yesno', 'B', '', '', '', '', '', '', "[visit] < '2024-01-01'"),
      row('c', 'f', '', 'yesno', 'C', '', '', '', '', '', '', '[grade] < 2'),
      row('d', 'f', '', 'yesno', 'D', '', '', '', '', '', '', "[site] < 'sh'"),
    ].join('\n');
    const result = importRedcapDictionary(csv);
    expect(result.ok, JSON.stringify(result.issues)).toBe(true);
    const showIf = (name: string) => result.definitions[0]!.children.find((n) => n.name === name)!.option.showIf;
    expect(showIf('a')).toBe('not isblank(age) and age < 18');
    expect(showIf('b')).toBe('isblank(visit) or visit < "2024-01-01"');
    expect(showIf('c')).toBe('not isblank(grade) and grade < 2');
    expect(showIf('d')).toBe('isblank(site) or site < "sh"');
  });
});
