import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';
import { lintDefinition } from '../linter.js';
import { deepFreeze, item } from '../test/fixtures.js';
import type { AmendmentRecord, MigrationOptions, PlannedChange } from './amendment-types.js';
import { diffDefinitions } from './diff-definitions.js';
import { evaluateForm } from '../evaluate-form.js';
import { changedItemNames } from '../record-values.js';
import { keepInertValues } from './inert-values.js';
import { buildImpactReport, migrateRecordValues, planRecordMigration } from './plan-migration.js';

const options: MigrationOptions = { today: '2024-06-15', timeZone: 'Asia/Shanghai' };
const form = (children: CrfNode[]): CrfDefinition => deepFreeze({ title: '随访', option: {}, children });
const brief = (changes: PlannedChange[]) =>
  changes.map((c) => `${c.kind} ${c.container ? `${c.container}[${c.row}].` : ''}${c.itemName}`);

const v1 = form([
  item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
  item('int', 'age', '年龄', { units: '岁' }),
  item('real', 'weight', '体重', { units: 'kg' }),
  item('real', 'height', '身高', { units: 'cm' }),
  item('real', 'bmi', '体质指数', { calc: 'weight / 2' }),
  item('input', 'smoke', '吸烟史'),
  item('multiSelect', 'allergy', '过敏', { optionsValue: 'a,b,c', optionsText: '青霉素,磺胺,其他' }),
  item('input', 'old_note', '备注'),
  item('listGroup', 'meds', '合并用药', {}, [
    item('input', 'drug', '药物'),
    item('real', 'dose', '剂量'),
    item('input', 'route', '途径'),
  ]),
]);

const v2 = form([
  item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
  item('int', 'age', '年龄（岁）', { units: '岁', validate: { min: 18, max: 80 } }),
  item('real', 'weight', '体重', { units: 'kg' }),
  item('real', 'height', '身高', { units: 'cm' }),
  item('real', 'bmi', '体质指数', { calc: 'weight / 4' }),
  item('input', 'smoke', '吸烟史', { showIf: 'sex == "1"' }),
  item('checkbox', 'allergy', '过敏', { optionsValue: 'a,b,c', optionsText: '青霉素,磺胺,其他' }),
  item('input', 'note', '备注'),
  item('listGroup', 'meds', '合并用药', {}, [
    item('input', 'drug', '药物'),
    item('real', 'dose', '剂量', { showIf: 'drug != "停用"' }),
  ]),
  item('real', 'hb', '血红蛋白', { refValueMaleMin: 130, refValueMaleMax: 175 }),
]);

describe('diffDefinitions', () => {
  it('the forms pass the linter', () => {
    expect(lintDefinition(v1).errors).toEqual([]);
    expect(lintDefinition(v2).errors).toEqual([]);
  });

  it('names items added, removed, renamed (same label and type), retyped and relabelled, columns included', () => {
    const diff = diffDefinitions(v1, v2);
    expect(diff.added).toEqual([
      { name: 'note', label: '备注', type: 'input' },
      { name: 'hb', label: '血红蛋白', type: 'real' },
    ]);
    expect(diff.removed).toEqual([
      { name: 'old_note', label: '备注', type: 'input' },
      { name: 'route', label: '途径', type: 'input' },
    ]);
    expect(diff.renamed).toEqual([{ from: 'old_note', to: 'note', label: '备注' }]);
    expect(diff.retyped).toEqual([{ name: 'allergy', label: '过敏', fromType: 'multiSelect', toType: 'checkbox' }]);
    expect(diff.relabelled).toEqual([{ name: 'age', fromLabel: '年龄', toLabel: '年龄（岁）' }]);
  });

  it('a version compared with itself changes nothing', () => {
    expect(diffDefinitions(v1, v1)).toEqual({ added: [], removed: [], renamed: [], retyped: [], relabelled: [] });
  });
});

describe('migrateRecordValues', () => {
  const values = deepFreeze({
    sex: '2',
    age: '90',
    weight: '80',
    bmi: '40',
    smoke: '10年',
    allergy: 'a,c',
    old_note: '旧备注',
    meds: [
      { drug: '阿司匹林', dose: '100', route: '口服' },
      { drug: '停用', dose: '5' },
    ],
    hb: '120',
  });

  it('carries values by name and says every change, the way a save under the new version stores them', () => {
    const { values: after, changes } = migrateRecordValues(v1, v2, values, options, { gender: 'male' });
    expect(after).toEqual({
      sex: '2',
      age: '90',
      weight: '80',
      bmi: '20',
      allergy: ['a', 'c'],
      old_note: '旧备注',
      meds: [{ drug: '阿司匹林', dose: '100', route: '口服' }, { drug: '停用' }],
      hb: '120',
    });
    expect(brief(changes)).toEqual([
      'outOfRange age',
      'calculation bmi',
      'hidden smoke',
      'converted allergy',
      'removed meds[0].route',
      'hidden meds[1].dose',
      'outOfRange hb',
      'removed old_note',
    ]);
    const byName = (name: string) => changes.find((c) => c.itemName === name)!;
    expect(byName('bmi')).toMatchObject({ oldValue: '40', newValue: '20', label: '体质指数' });
    expect(byName('smoke')).toMatchObject({ oldValue: '10年', newValue: undefined });
    expect(byName('allergy')).toMatchObject({ oldValue: 'a,c', newValue: ['a', 'c'] });
    expect(byName('allergy').message).toBe('题目类型由「下拉多选」改为「多选」：值按新类型无损转换');
    expect(byName('age')).toMatchObject({ oldValue: '90', newValue: '90', message: '不能大于80' });
    expect(byName('hb').message).toBe('超出参考值范围（偏低）');
    expect(byName('old_note')).toMatchObject({ oldValue: '旧备注', newValue: '旧备注', label: '备注' });
    expect(changes.find((c) => c.itemName === 'dose')).toMatchObject({ container: 'meds', row: 1, oldValue: '5' });
  });

  it('a removed item alone changes no stored value', () => {
    const plan = planRecordMigration(v1, v2, record(1, { sex: '1', old_note: 'x' }), options);
    expect(brief(plan.changes)).toEqual(['removed old_note']);
    expect(plan.valuesChange).toBe(false);
  });

  it('a value that stays the same value keeps its stored form', () => {
    const slider = form([item('slider', 'pain', '疼痛', { valueMin: 0, valueMax: 10 })]);
    const int = form([item('int', 'pain', '疼痛')]);
    const moved = migrateRecordValues(int, slider, { pain: '5' }, options);
    expect(moved).toEqual({ values: { pain: '5' }, changes: [], missing: {} });
  });

  it('a retyped value that cannot convert losslessly is kept as it was and reported invalid', () => {
    const text = form([item('input', 'pain', '疼痛')]);
    const slider = form([item('slider', 'pain', '疼痛', { valueMin: 0, valueMax: 10 })]);
    const moved = migrateRecordValues(text, slider, { pain: '轻度' }, options);
    expect(moved.values).toEqual({ pain: '轻度' });
    expect(moved.changes).toEqual([
      {
        itemName: 'pain',
        label: '疼痛',
        kind: 'invalid',
        oldValue: '轻度',
        newValue: '轻度',
        message: '题目类型由「单行文本」改为「滑块」：值不能无损转换，保留原值',
      },
    ]);
  });

  it('a text retyped to a number that is not one stays and is invalid under the new rules', () => {
    const text = form([item('input', 'n', '数')]);
    const int = form([item('int', 'n', '数')]);
    const moved = migrateRecordValues(text, int, { n: '十二' }, options);
    expect(moved.values).toEqual({ n: '十二' });
    expect(brief(moved.changes)).toEqual(['invalid n']);
  });

  it('a value already out of the old range is not reported again', () => {
    const before = form([item('int', 'age', '年龄', { validate: { max: 80 } })]);
    const after = form([item('int', 'age', '年龄', { validate: { max: 80 }, units: '岁' })]);
    expect(migrateRecordValues(before, after, { age: '90' }, options).changes).toEqual([]);
  });

  it('an addition no chosen option asks for any more is cleared as the save clears it', () => {
    const choice = (additionIndex?: string) =>
      form([
        item('radio', 'race', '民族', {
          optionsValue: '1,2',
          optionsText: '汉族,其他',
          addition: '请注明',
          ...(additionIndex ? { additionIndex } : {}),
        }),
      ]);
    const moved = migrateRecordValues(choice('1'), choice(), { race: '2', race_addition: '回族' }, options);
    expect(moved.values).toEqual({ race: '2' });
    expect(moved.changes).toMatchObject([{ itemName: 'race_addition', kind: 'hidden', oldValue: '回族' }]);
  });

  it('a new calculation fills its item', () => {
    const before = form([item('int', 'a', 'A'), item('int', 'b', 'B')]);
    const after = form([item('int', 'a', 'A'), item('int', 'b', 'B', { calc: 'a * 2' })]);
    const moved = migrateRecordValues(before, after, { a: '3' }, options);
    expect(moved.values).toEqual({ a: '3', b: '6' });
    expect(moved.changes).toMatchObject([{ itemName: 'b', kind: 'calculation', oldValue: undefined, newValue: '6' }]);
  });
});

function record(id: number, values: Record<string, unknown>, flags: Partial<AmendmentRecord> = {}): AmendmentRecord {
  return { id, values, submitted: false, signed: false, sdvVerified: false, locked: false, ...flags };
}

describe('buildImpactReport', () => {
  it('counts records by state, changed and unchanged; findings per kind and item; a locked record is reported, never moved', () => {
    const records = [
      record(1, { sex: '2', smoke: '有' }, { submitted: true, signed: true }),
      record(2, { sex: '1', smoke: '有', old_note: 'x' }, { sdvVerified: true }),
      record(3, { sex: '2', smoke: '无', old_note: 'y' }, { locked: true, submitted: true }),
    ];
    const report = buildImpactReport(v1, v2, records, { ...options, fromVersion: 1, toVersion: 2 });
    expect(report.fromVersion).toBe(1);
    expect(report.toVersion).toBe(2);
    expect(report.records).toEqual({
      total: 3,
      submitted: 2,
      signed: 1,
      sdvVerified: 1,
      locked: 1,
      changed: 2,
      unchanged: 1,
    });
    expect(report.findings).toEqual([
      { kind: 'removed', itemName: 'old_note', label: '备注', count: 2 },
      { kind: 'hidden', itemName: 'smoke', label: '吸烟史', count: 2 },
    ]);
    expect(report.perRecord.map((r) => [r.recordId, r.valuesChange, r.willMove])).toEqual([
      [1, true, true],
      [2, false, true],
      [3, true, false],
    ]);
    expect(report.diff).toEqual(diffDefinitions(v1, v2));
  });
});

describe('keepInertValues', () => {
  const moved = migrateRecordValues(
    v1,
    v2,
    {
      sex: '1',
      old_note: '旧',
      meds: [
        { drug: 'A', route: '口服' },
        { drug: 'B', route: '静脉' },
      ],
    },
    options,
  ).values;
  const save = (values: Record<string, unknown>) =>
    keepInertValues(v2, moved, evaluateForm(v2, values, { now: new Date(Date.UTC(2024, 5, 15, 2)) }).values);

  it('a save of a moved record keeps the values the new version removed: saving it unchanged changes nothing', () => {
    expect(moved).toEqual({
      sex: '1',
      old_note: '旧',
      meds: [
        { drug: 'A', route: '口服' },
        { drug: 'B', route: '静脉' },
      ],
    });
    expect(changedItemNames(moved, save(moved))).toEqual([]);
  });

  it('a list row that keeps its place and cells keeps its removed cells; an edited row loses them', () => {
    const edited = save({ ...moved, meds: [{ drug: 'A' }, { drug: 'C' }] });
    expect(edited.meds).toEqual([{ drug: 'A', route: '口服' }, { drug: 'C' }]);
    expect(edited.old_note).toBe('旧');
  });
});
