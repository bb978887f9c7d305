import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition } from './crf-definition.schema.js';
import { evaluateForm } from './evaluate-form.js';
import { lintDefinition } from './linter.js';
import {
  holdsIdentifierMask,
  identifierItemsOf,
  isIdentifierKey,
  maskIdentifierAuditRow,
  maskIdentifierItems,
  restoreIdentifierItems,
  withoutIdentifierItems,
} from './identifier-items.js';
import { IDENTIFIER_MASK } from './identifier-mask.js';
import { valueText } from './record-values.js';
import { item } from './test/fixtures.js';

const M = IDENTIFIER_MASK;
const contacts: CrfDefinition = {
  title: '联系信息',
  option: {},
  children: [
    item('section', 'basic', '基本信息', {}, [
      item('input', 'hospital_no', '住院号', { identifier: 1 }),
      item('date', 'visit', '就诊日期', { identifier: 'y' }),
      item('radio', 'relation', '联系人关系', {
        optionsValue: '1,2',
        optionsText: '配偶,其他',
        addition: '请注明',
        additionIndex: '1',
        identifier: true,
      }),
      item('int', 'height', '身高', { identifier: 0 }),
    ]),
    item('listGroup', 'family', '家属', {}, [
      item('input', 'who', '姓名', { identifier: '1' }),
      item('input', 'rel', '关系'),
    ]),
    item('listGroup', 'meds', '用药', {}, [item('input', 'drug', '药名')]),
  ],
};
const ids = identifierItemsOf(contacts);
const stored = {
  hospital_no: 'ZY2026001',
  visit: '2026-01-02',
  relation: '2',
  relation_addition: '表哥王五',
  height: 170,
  family: [
    { who: '张一', rel: '父' },
    { who: '张二', rel: '母' },
  ],
  meds: [{ drug: '塞来昔布' }],
};

describe('which items are identifiers', () => {
  it('items flagged identifier (any of the legacy flag spellings), their addition text, and flagged columns by list group', () => {
    expect([...ids.items].sort()).toEqual([
      'hospital_no',
      'hospital_no_addition',
      'relation',
      'relation_addition',
      'visit',
      'visit_addition',
    ]);
    expect([...ids.rows.keys()]).toEqual(['family']);
    expect([...ids.rows.get('family')!].sort()).toEqual(['who', 'who_addition']);
    expect(isIdentifierKey(ids, 'who', 'family')).toBe(true);
    expect(isIdentifierKey(ids, 'rel', 'family')).toBe(false);
    expect(isIdentifierKey(ids, 'height')).toBe(false);
  });

  it("items holding one of the patient's identifiers (patientField subjectName, birth, mobile, idNumber) count too; gender and age do not", () => {
    const demographics = {
      children: [
        item('input', 'name', '姓名', { patientField: 'subjectName' }),
        item('date', 'birth', '出生日期', { patientField: 'birth' }),
        item('input', 'phone', '手机号', { patientField: 'mobile' }),
        item('input', 'id_no', '身份证号', { patientField: 'idNumber' }),
        item('radio', 'sex', '性别', { patientField: 'gender', optionsValue: '1,2', optionsText: '男,女' }),
        item('int', 'age', '年龄', { patientField: 'age' }),
        item('input', 'code', '研究编号', { patientField: 'identificationCode' }),
      ],
    };
    const found = identifierItemsOf(demographics);
    expect([...found.items].filter((k) => !k.endsWith('_addition')).sort()).toEqual([
      'birth',
      'id_no',
      'name',
      'phone',
    ]);
  });

  it('several versions of a form together: flagged in any of them', () => {
    const later: CrfDefinition = { ...contacts, children: [item('input', 'height', '身高', { identifier: 1 })] };
    const both = identifierItemsOf(contacts, later);
    expect(both.items.has('height')).toBe(true);
    expect(both.items.has('hospital_no')).toBe(true);
    expect(identifierItemsOf({ children: [] }).items.size).toBe(0);
  });
});

describe('masked for a reader without 查看患者身份信息', () => {
  it('every filled identifier (cells too) reads as one fixed mask; empty stays empty; the rest is untouched', () => {
    expect(maskIdentifierItems(ids, stored)).toEqual({
      hospital_no: M,
      visit: M,
      relation: M,
      relation_addition: M,
      height: 170,
      family: [
        { who: M, rel: '父' },
        { who: M, rel: '母' },
      ],
      meds: [{ drug: '塞来昔布' }],
    });
    expect(maskIdentifierItems(ids, { hospital_no: '', family: [{ rel: '父' }] })).toEqual({
      hospital_no: '',
      family: [{ rel: '父' }],
    });
    const plain = { height: 170 };
    expect(maskIdentifierItems(ids, plain)).toBe(plain);
  });

  it('left out for an export without identifiers', () => {
    expect(withoutIdentifierItems(ids, stored)).toEqual({
      height: 170,
      family: [{ rel: '父' }, { rel: '母' }],
      meds: [{ drug: '塞来昔布' }],
    });
  });

  it('a mask reads as the mask in words, whatever the item type (no addition text, no unit)', () => {
    const relation = contacts.children[0]!.children[2]!;
    expect(valueText(relation, M, { relation_addition: '表哥王五' })).toBe(M);
  });

  it("trail rows: an item's change and a deleted record's snapshot", () => {
    const change = { action: 'item.update', itemName: 'hospital_no', oldValue: 'ZY1', newValue: null };
    expect(maskIdentifierAuditRow(ids, change)).toEqual({ ...change, oldValue: M, newValue: null });
    const rows = { action: 'item.update', itemName: 'family', oldValue: null, newValue: stored.family };
    expect(maskIdentifierAuditRow(ids, rows).newValue).toEqual([
      { who: M, rel: '父' },
      { who: M, rel: '母' },
    ]);
    const other = { action: 'item.update', itemName: 'height', oldValue: 160, newValue: 170 };
    expect(maskIdentifierAuditRow(ids, other)).toBe(other);
    const deleted = { action: 'crf.delete', itemName: null, oldValue: stored, newValue: null };
    expect(maskIdentifierAuditRow(ids, deleted).oldValue).toEqual(maskIdentifierItems(ids, stored));
    const doubt = { action: 'doubt.open', itemName: 'hospital_no', oldValue: null, newValue: '请核实' };
    expect(maskIdentifierAuditRow(ids, doubt)).toBe(doubt);
  });
});

describe('the save: a mask sent back is the stored value', () => {
  const shown = maskIdentifierItems(ids, stored);

  it('the form sent back as it was shown changes nothing', () => {
    for (const mayChange of [false, true]) {
      const out = restoreIdentifierItems(ids, shown, stored, mayChange);
      expect(out).toEqual({ values: stored, changed: [], unmatched: [] });
    }
  });

  it('without the permission: an empty identifier may be filled, a stored one neither changed nor cleared; left out it is kept', () => {
    const fill = restoreIdentifierItems(ids, { hospital_no: 'ZY9' }, {}, false);
    expect(fill).toEqual({ values: { hospital_no: 'ZY9' }, changed: [], unmatched: [] });
    const change = restoreIdentifierItems(ids, { ...shown, hospital_no: 'ZY9', visit: null }, stored, false);
    expect(change.changed).toEqual(['hospital_no', 'visit']);
    const kept = restoreIdentifierItems(ids, { height: 171 }, stored, false).values;
    expect(kept).toMatchObject({ hospital_no: 'ZY2026001', visit: '2026-01-02', relation_addition: '表哥王五' });
    // With it, a typed value is taken and a value left out is cleared, as for any item.
    const typed = restoreIdentifierItems(ids, { ...shown, hospital_no: 'ZY9', visit: null }, stored, true);
    expect(typed.values).toMatchObject({ hospital_no: 'ZY9', visit: null, relation: '2' });
    expect(restoreIdentifierItems(ids, {}, stored, true).values).toEqual({});
  });

  it('a mask where nothing is stored is no value', () => {
    expect(restoreIdentifierItems(ids, { hospital_no: M }, {}, false).values).toEqual({});
  });

  it('rows are recognised by how they were shown: removed or added rows keep each row its own identifiers', () => {
    const removedFirst = restoreIdentifierItems(
      ids,
      { family: [shown.family[1]!, { who: '新', rel: '子' }] },
      stored,
      false,
    );
    expect(removedFirst.values.family).toEqual([
      { who: '张二', rel: '母' },
      { who: '新', rel: '子' },
    ]);
    expect(removedFirst.unmatched).toEqual([]);
    // An edited row with a mask in it cannot be told apart: refused rather than given another row's name.
    const edited = restoreIdentifierItems(ids, { family: [{ who: M, rel: '祖父' }, shown.family[1]!] }, stored, false);
    expect(edited.unmatched).toEqual(['family']);
    // Two rows shown alike get the stored ones in order.
    const twins = {
      family: [
        { who: '甲', rel: '子' },
        { who: '乙', rel: '子' },
      ],
    };
    const back = restoreIdentifierItems(ids, maskIdentifierItems(ids, twins), twins, false);
    expect(back.values.family).toEqual(twins.family);
  });

  it('property: whatever is stored, the masked values sent back restore exactly it', () => {
    const text = fc.string({ minLength: 1, maxLength: 8 }).filter((v) => v.trim() !== '' && v !== M);
    const record = fc.record(
      {
        hospital_no: text,
        visit: fc.constantFrom('2026-01-02', '2025-12-31'),
        relation: fc.constantFrom('1', '2'),
        height: fc.integer({ min: 100, max: 220 }),
        family: fc.array(fc.record({ who: text, rel: text }, { requiredKeys: ['rel'] }), { maxLength: 4 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(record, fc.boolean(), (values, mayChange) => {
        const out = restoreIdentifierItems(ids, maskIdentifierItems(ids, values), values, mayChange);
        expect(out.changed).toEqual([]);
        expect(out.unmatched).toEqual([]);
        expect(out.values).toEqual(values);
        expect(holdsIdentifierMask(out.values)).toEqual([]);
      }),
    );
  });

  it('a mask left anywhere is found (it must never be stored)', () => {
    expect(holdsIdentifierMask({ a: M, b: 'x', rows: [{ c: M }], other: [{ d: 1 }] })).toEqual(['a', 'rows']);
  });
});

describe('the engine keeps a mask as it is', () => {
  it('read-only, unchecked (a date item, a required choice), a masked row read-only; the values keep the masks', () => {
    const required: CrfDefinition = {
      ...contacts,
      children: contacts.children.map((n) =>
        n.name === 'basic'
          ? { ...n, children: n.children.map((c) => ({ ...c, option: { ...c.option, required: 1 } })) }
          : n,
      ),
    };
    const shown = maskIdentifierItems(ids, stored);
    const state = evaluateForm(required, shown, { now: new Date('2026-11-22T08:00:00Z') });
    expect(state.errors).toEqual([]);
    expect(state.values).toMatchObject({ hospital_no: M, visit: M, relation: M });
    for (const name of ['hospital_no', 'visit', 'relation']) {
      expect(state.items[name], name).toMatchObject({ value: M, readOnly: true, errors: [] });
    }
    expect(state.items.height).toMatchObject({ readOnly: false });
    const cells = (name: string) => state.items[name]!.rows!.flatMap((row) => Object.values(row));
    expect(cells('family').every((cell) => cell.readOnly)).toBe(true);
    expect(cells('meds').some((cell) => cell.readOnly)).toBe(false);
    expect(state.values.family).toEqual(shown.family);
  });

  it('a condition or a check reading a mask cannot be decided here: the item shows (never hidden and cleared), the check waits', () => {
    const gated: CrfDefinition = {
      title: '联系信息',
      option: {},
      children: [
        item('input', 'hospital_no', '住院号', { identifier: 1 }),
        item('input', 'ward', '病区', { showIf: "hospital_no = 'ZY1'" }),
        item('int', 'height', '身高', {
          checks: [{ expression: "hospital_no <> ''", message: '请先填写住院号', severity: 'error' }],
        }),
      ],
    };
    const masked = evaluateForm(gated, { hospital_no: M, ward: '三病区', height: 170 }, { now: new Date() });
    expect(masked.items.ward).toMatchObject({ visible: true, value: '三病区' });
    expect(masked.errors).toEqual([]);
    const clear = evaluateForm(gated, { hospital_no: 'ZY2', ward: '三病区', height: 170 }, { now: new Date() });
    expect(clear.items.ward).toMatchObject({ visible: false });
    expect(clear.values.ward).toBeUndefined();
  });

  it('the linter warns when a calculation reads an identifier and is not flagged itself', () => {
    const derived: CrfDefinition = {
      title: '联系信息',
      option: {},
      children: [
        item('input', 'hospital_no', '住院号', { identifier: 1 }),
        item('input', 'code', '编码', { calc: "concat('H', hospital_no)" }),
        item('input', 'code2', '编码2', { calc: "concat('H', hospital_no)", identifier: 1 }),
      ],
    };
    expect(lintDefinition(derived).warnings.map((w) => [w.name, w.message])).toEqual([
      ['code', '计算读取身份标识字段 hospital_no：结果也可能识别患者，请同样标记 identifier'],
    ]);
  });
});
