import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CrfDefinitionError, formatIssue } from './compile-form.js';
import type { CrfDefinition, CrfNode } from './crf-definition.schema.js';
import { ITEM_TYPES } from './crf-definition.schema.js';
import { evaluateForm } from './evaluate-form.js';
import { lintDefinition } from './linter.js';
import { item } from './test/fixtures.js';

const crf = (...children: CrfNode[]): CrfDefinition => ({ title: '测试表单', option: {}, children });
const sex = item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' });
const errorsOf = (input: unknown) => lintDefinition(input).errors.map(formatIssue);

describe('definition linter', () => {
  it('WID-01/WID-02: accepts every item type of forms §3 and returns the parsed definition', () => {
    expect(ITEM_TYPES).toHaveLength(27);
    const result = lintDefinition(crf(sex));
    expect(result.ok).toBe(true);
    expect(result.definition?.children[0]?.name).toBe('sex');
  });

  it.each<[string, unknown, RegExp]>([
    [
      'unknown item type',
      crf(item('section', 's', '节', {}, [{ ...sex, type: 'radiobox' as CrfNode['type'] }])),
      /^children\[0\]\.children\[0\]\.type（sex）：未知的题目类型 "radiobox"$/,
    ],
    ['duplicate names', crf(sex, { ...sex }), /^children\[1\]（sex）：题目名称重复：sex（与 children\[0\] 相同）$/],
    ['value item without a name', crf(item('input', '', '姓名')), /^children\[0\]\.name：题目缺少名称/],
    ['name unusable in expressions', crf(item('input', 'a-b', '姓名')), /题目名称只能由字母、数字、下划线组成/],
    [
      'trigger on a missing item',
      crf(item('input', 'x', 'X', { trig: 'gender', tindex: '0' })),
      /^children\[0\]\.option\.trig（x）：触发条件引用的题目不存在：gender$/,
    ],
    [
      'trigger index out of range',
      crf(sex, item('input', 'x', 'X', { trig: 'sex', tindex: '2' })),
      /option\.tindex（x）：触发条件的选项序号 2 超出题目 sex 的选项范围（0 到 1）/,
    ],
    [
      'trigex index out of range',
      crf(sex, item('input', 'x', 'X', { trigex: 'sex:5' })),
      /option\.trigex（x）：触发条件的选项序号 5 超出/,
    ],
    [
      'trigger on an item without options',
      crf(item('input', 'y', 'Y'), item('input', 'x', 'X', { trig: 'y', tindex: '0' })),
      /触发条件引用的题目 y 没有选项/,
    ],
    ['trig without tindex', crf(sex, item('input', 'x', 'X', { trig: 'sex' })), /设置了 trig 但缺少 tindex/],
    [
      'unparsable expression',
      crf(item('int', 'x', 'X', { calc: 'a +* 2' })),
      /^children\[0\]\.option\.calc（x）：表达式语法错误（第 4 个字符）：此处不能出现 "\*"：a \+\* 2$/,
    ],
    ['unknown function', crf(item('int', 'x', 'X', { showIf: 'eval(1)' })), /option\.showIf（x）：未知的函数 eval\(\)/],
    [
      'expression on a missing item',
      crf(item('int', 'x', 'X', { calc: 'weight * 2' })),
      /option\.calc（x）：表达式引用的题目不存在：weight/,
    ],
    [
      'check expression on a missing item',
      crf(item('int', 'x', 'X', { checks: [{ expression: 'x < y', message: 'm', severity: 'error' }] })),
      /option\.checks\[0\]\.expression（x）：表达式引用的题目不存在：y/,
    ],
    [
      'calculation cycle',
      crf(
        item('int', 'a', 'A', { calc: 'b + 1' }),
        item('int', 'b', 'B', { calc: 'c + 1' }),
        item('int', 'c', 'C', { calc: 'a + 1' }),
      ),
      /计算或显示条件存在循环依赖：a → c → b → a|计算或显示条件存在循环依赖：a → b → c → a/,
    ],
    ['self reference', crf(item('int', 'a', 'A', { calc: 'a + 1' })), /计算或显示条件引用了题目自身：a/],
    [
      'cycle through visibility',
      crf(
        item('radio', 'a', 'A', { optionsValue: '1', showIf: 'b == 1' }),
        item('radio', 'b', 'B', { optionsValue: '1', trig: 'a', tindex: '0' }),
      ),
      /循环依赖/,
    ],
    [
      'cycle inside list-group rows',
      crf(
        item('listGroup', 'lg', 'LG', {}, [item('int', 'p', 'P', { calc: 'q' }), item('int', 'q', 'Q', { calc: 'p' })]),
      ),
      /循环依赖/,
    ],
    [
      'min above max',
      crf(item('int', 'x', 'X', { validate: { min: 10, max: 1 } })),
      /option\.validate（x）：最小值 10 大于最大值 1/,
    ],
    ['non-numeric bound', crf(item('int', 'x', 'X', { validate: { min: 'ten' } })), /validate\.min 必须是数字：ten/],
    ['slider range', crf(item('slider', 'x', 'X', { valueMin: 10, valueMax: 5 })), /滑块最小值 10 必须小于最大值 5/],
    ['slider step', crf(item('slider', 'x', 'X', { valueStep: -1 })), /滑块步长必须大于 0/],
    [
      'reference range',
      crf(item('real', 'x', 'X', { refValueFemaleMin: 5, refValueFemaleMax: 1 })),
      /女性参考值下限 5 大于上限 1/,
    ],
    ['choices without options', crf(item('radio', 'x', 'X')), /选择题缺少选项/],
    [
      'options text mismatch',
      crf(item('radio', 'x', 'X', { optionsValue: '1,2', optionsText: '是' })),
      /选项文字数（1）与选项值数（2）不一致/,
    ],
    ['duplicate option values', crf(item('select', 'x', 'X', { optionsValue: '1,1' })), /选项值重复：1/],
    [
      'addition index out of range',
      crf(item('radio', 'x', 'X', { optionsValue: '1,2', additionIndex: '2' })),
      /附加项的选项序号 2 超出选项范围/,
    ],
    ['bad regular expression', crf(item('input', 'x', 'X', { validationEx: '([a-z' })), /正则表达式无效/],
    [
      'bad converter rule',
      crf(item('real', 'x', 'X', { format: 'percent' })),
      /option\.format（x）：未知的转换规则：percent/,
    ],
    ['bad date format', crf(item('date', 'x', 'X', { format: 'dd/MM/yyyy' })), /日期格式无效/],
    ['bad date default', crf(item('date', 'x', 'X', { defaultValue: '2024-02-30' })), /默认值不是有效日期/],
    [
      'now on a text item',
      crf(item('input', 'x', 'X', { defaultValue: 'now' })),
      /只有日期和时间题目可以使用默认值 now/,
    ],
    [
      'children under an input',
      crf(item('input', 'x', 'X', {}, [item('input', 'y', 'Y')])),
      /input 类型的题目不能包含子题目/,
    ],
    [
      'nested list groups',
      crf(item('listGroup', 'a', 'A', {}, [item('listGroup', 'b', 'B', {}, [item('input', 'c', 'C')])])),
      /不能嵌套/,
    ],
    [
      'crfRules on a missing item',
      { ...crf(sex), crfRules: [{ target: 'dose', formula: '1' }] },
      /crfRules\[0\]\.target：crfRules 的目标题目不存在：dose/,
    ],
    ['calc on a section', crf(item('section', 's', 'S', { calc: '1' }, [sex])), /section 类型的节点没有值，不能计算/],
    [
      'trigger into another list group',
      crf(
        item('input', 'x', 'X', { trig: 'r', tindex: '0' }),
        item('listGroup', 'lg', 'LG', {}, [item('radio', 'r', 'R', { optionsValue: '1' })]),
      ),
      /不能引用其他列表组中的题目：r/,
    ],
    ['missing title', { option: {}, children: [] }, /^title：无效输入/],
    ['not an object', 'hello', /^\(根\)：/],
  ])('refuses %s with a precise message and the node path', (_title, input, message) => {
    const result = lintDefinition(input);
    expect(result.ok).toBe(false);
    expect(result.definition).toBeNull();
    expect(result.errors.map(formatIssue).some((m) => message.test(m))).toBe(true);
  });

  it('warns about unknown option fields and keeps them', () => {
    const result = lintDefinition(crf(item('input', 'x', 'X', { legacyColor: 'red' } as CrfNode['option'])));
    expect(result.ok).toBe(true);
    expect(result.warnings.map(formatIssue)).toEqual([
      'children[0].option.legacyColor（x）：未知的选项字段 legacyColor，将原样保留',
    ]);
    expect((result.definition!.children[0]!.option as Record<string, unknown>).legacyColor).toBe('red');
  });

  it('VIS-05: warns when a reference range cannot be converted to a unit of the selector; molarMass must be positive', () => {
    const ranged = (option: CrfNode['option']) =>
      lintDefinition(crf(item('real', 'x', 'X', { refValueMaleMin: 1, refValueMaleMax: 2, ...option })));
    expect(ranged({ units: 'g/L,g/dL,mg/dL' }).warnings).toEqual([]);
    expect(ranged({ units: 'mmol/L,mg/dL' }).warnings.map(formatIssue)).toEqual([
      'children[0].option.units（x）：参考范围按第一个单位 mmol/L 填写，无法换算为 mg/dL（需要填写摩尔质量 molarMass）：选择该单位时不显示偏高偏低',
    ]);
    expect(ranged({ units: 'mmol/L,mg/dL', molarMass: 180.16 }).warnings).toEqual([]);
    expect(ranged({ units: '℃,℉' }).warnings.map(formatIssue)).toEqual([
      'children[0].option.units（x）：参考范围按第一个单位 ℃ 填写，无法换算为 ℉：选择该单位时不显示偏高偏低',
    ]);
    expect(lintDefinition(crf(item('real', 'x', 'X', { units: '℃,℉' }))).warnings).toEqual([]);
    expect(ranged({ units: 'mmol/L,mg/dL', molarMass: 0 }).errors.map(formatIssue)).toEqual([
      'children[0].option.molarMass（x）：摩尔质量（molarMass）必须大于 0',
    ]);
    expect(ranged({ molarMass: 'abc' }).errors.map(formatIssue)).toEqual([
      'children[0].option.molarMass（x）：molarMass 必须是数字：abc',
    ]);
  });

  it('form(): another form is named by literals, and a form cannot name itself', () => {
    expect(errorsOf(crf(item('date', 'd', 'D', { calc: 'date(form("手术记录", "op_at"))' })))).toEqual([]);
    expect(errorsOf(crf(item('int', 'x', 'X', { calc: 'form("测试表单", "y")' }), item('int', 'y', 'Y')))).toEqual([
      'children[0].option.calc（x）：form() 不能引用本表单“测试表单”，本表单的题目请直接写名称：y',
    ]);
    expect(errorsOf(crf(item('int', 'x', 'X', { showIf: 'form(t, "y") > 1' }))).join('')).toMatch(
      /form\(\) 的两个参数必须是写在引号中的表单标题和题目名称/,
    );
  });

  it('reports every error at once', () => {
    expect(
      errorsOf(crf(item('int', 'a', 'A', { calc: 'zz' }), item('int', 'a', 'B', { validate: { min: 2, max: 1 } }))),
    ).toHaveLength(3);
  });

  it('evaluateForm refuses a broken definition instead of half-loading it', () => {
    expect(() => evaluateForm(crf(item('int', 'a', 'A', { calc: 'missing + 1' })), {}, { now: new Date() })).toThrow(
      CrfDefinitionError,
    );
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const result = lintDefinition(input);
        expect(result.ok).toBe(result.errors.length === 0);
      }),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.constantFrom('a', 'b', 'c', ''),
            title: fc.string(),
            type: fc.constantFrom(...ITEM_TYPES, 'x'),
            option: fc.dictionary(
              fc.constantFrom(
                'calc',
                'showIf',
                'trig',
                'tindex',
                'trigex',
                'optionsValue',
                'validationEx',
                'format',
                'defaultValue',
                'valueMin',
              ),
              fc.string(),
            ),
          }),
        ),
        (children) => {
          const result = lintDefinition({ title: 't', option: {}, children });
          if (result.ok) {
            expect(() => evaluateForm(result.definition!, { a: '1', b: ['1'] }, { now: new Date(0) })).not.toThrow();
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('the worked example of docs/crf-format.md', () => {
  it('WID-02/WID-03/WID-04/WID-05/WID-06/WID-07/WID-08: uses every item type and passes the linter', async () => {
    const { everyTypeCrf } = await import('./test/fixtures.js');
    const definition = everyTypeCrf();
    const types = new Set<string>();
    const walk = (nodes: CrfNode[]) => nodes.forEach((n) => (types.add(n.type), walk(n.children)));
    walk(definition.children);
    expect([...types].sort()).toEqual([...ITEM_TYPES].sort());
    const result = lintDefinition(definition);
    expect(result.errors).toEqual([]);
    const state = evaluateForm(
      result.definition!,
      {
        sex: '2',
        weight: '60',
        height: '160',
        history: ['1', '99'],
        lmp: '2024-05',
        meds: [{ drug: 'x', dose: '2', times: '3' }],
      },
      { now: new Date(Date.UTC(2024, 5, 15, 2)) },
    );
    expect(state.values).toMatchObject({
      bmi: '23.4',
      lmp: '2024-05',
      meds: [{ drug: 'x', dose: '2', times: '3', daily: '6' }],
    });
    expect(state.items.dm!.visible).toBe(true);
    expect(state.items.history!.additionVisible).toBe(true);
  });
});
