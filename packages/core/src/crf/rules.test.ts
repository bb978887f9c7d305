import { describe, expect, it } from 'vitest';
import type { CrfNode } from './crf-definition.schema.js';
import { gridSpan, GRID_COLUMNS, sliderRange, tableColumnMinWidth } from './layout.js';
import { choicesOf, unitsOf } from './options.js';
import {
  genderFromFormContext,
  genderFromPatient,
  genderToFormContext,
  genderToPatient,
  rangeIndicator,
} from './reference-range.js';
import { chosenIndexes, isShownBySpecRules, parseTriggers } from './visibility.js';

const node = (type: CrfNode['type'], option: CrfNode['option'] = {}, title = '标题'): CrfNode => ({
  name: 'x',
  title,
  type,
  option,
  children: [],
});

describe('choices and units (forms §3)', () => {
  it('WID-05: choices come from parallel comma lists', () => {
    expect(choicesOf({ optionsValue: '1,2,3', optionsText: '轻度,中度,重度' })).toEqual([
      { value: '1', text: '轻度', index: 0 },
      { value: '2', text: '中度', index: 1 },
      { value: '3', text: '重度', index: 2 },
    ]);
  });

  it('WID-07: units are a comma list; several give a selector', () => {
    expect(unitsOf({ units: 'mmol/L,mg/dL' })).toEqual(['mmol/L', 'mg/dL']);
    expect(unitsOf({})).toEqual([]);
  });
});

describe('triggers (forms §4)', () => {
  const sex = node('radio', { optionsValue: '1,2', optionsText: '男,女' });
  const symptoms = { ...node('checkbox', { optionsValue: 'a,b,c' }), name: 'symptoms' };
  const lookup = (values: Record<string, unknown>) => (name: string) =>
    name === 'sex'
      ? { node: sex, value: values.sex }
      : name === 'symptoms'
        ? { node: symptoms, value: values.symptoms }
        : null;

  it('VIS-01: trig/tindex and trigex in both pair spellings', () => {
    expect(parseTriggers({ trig: 'sex', tindex: '1' })).toEqual({ trig: { name: 'sex', indexes: [1] }, trigex: [] });
    expect(parseTriggers({ trig: 'sex', tindex: 0 })).toEqual({ trig: { name: 'sex', indexes: [0] }, trigex: [] });
    expect(parseTriggers({ trigex: 'sex:1,symptoms:0,symptoms:2' }).trigex).toEqual([
      { name: 'sex', indexes: [1] },
      { name: 'symptoms', indexes: [0, 2] },
    ]);
    expect(parseTriggers({ trigex: 'sex,1,symptoms,2' }).trigex).toEqual([
      { name: 'sex', indexes: [1] },
      { name: 'symptoms', indexes: [2] },
    ]);
  });

  it('VIS-02: visible only when the chosen option is one of the listed indexes and not hidden', () => {
    const option = { trig: 'sex', tindex: '1' };
    expect(isShownBySpecRules(option, lookup({ sex: '2' }))).toBe(true);
    expect(isShownBySpecRules(option, lookup({ sex: '1' }))).toBe(false);
    expect(isShownBySpecRules(option, lookup({}))).toBe(false);
    expect(isShownBySpecRules({ ...option, hidden: 1 }, lookup({ sex: '2' }))).toBe(false);
    expect(isShownBySpecRules({ trigex: 'sex:0,symptoms:2' }, lookup({ symptoms: ['a', 'c'] }))).toBe(true);
    expect(isShownBySpecRules({ trigex: 'sex:0,symptoms:2' }, lookup({ sex: '2', symptoms: 'a,b' }))).toBe(false);
    expect(chosenIndexes(symptoms, '["c","a"]')).toEqual([0, 2]);
  });

  it('VIS-03/VIS-04: a hidden flag hides; no trigger shows', () => {
    expect(isShownBySpecRules({ hidden: '1' }, lookup({}))).toBe(false);
    expect(isShownBySpecRules({ hidden: 0 }, lookup({}))).toBe(true);
    expect(isShownBySpecRules({}, lookup({}))).toBe(true);
  });
});

describe('reference ranges and gender (forms §3, §4)', () => {
  const option = { refValueMaleMin: '4.0', refValueMaleMax: 5.5, refValueFemaleMin: 3.5, refValueFemaleMax: '5.0' };

  it.each<[unknown, 'male' | 'female', 'low' | 'high' | null]>([
    ['3.9', 'male', 'low'],
    ['4.0', 'male', null],
    ['5.5', 'male', null],
    ['5.6', 'male', 'high'],
    ['3.9', 'female', null],
    ['5.2', 'female', 'high'],
    ['3.4', 'female', 'low'],
    ['', 'male', null],
    ['abc', 'male', null],
  ])('VIS-05: %s for a %s subject is %s', (value, gender, expected) => {
    expect(rangeIndicator(value, option, gender)).toBe(expected);
  });

  it('VIS-05: no indicator without a gender or a range', () => {
    expect(rangeIndicator('100', option, null)).toBeNull();
    expect(rangeIndicator('100', {}, 'male')).toBeNull();
    expect(rangeIndicator('100', { refValueMaleMax: 50 }, 'male')).toBe('high');
  });

  it('VIS-06/SUBJ-04: form context 1 is female; patient entity 1 is male, 0 female; both convert to one reading', () => {
    expect(genderFromFormContext(1)).toBe('female');
    expect(genderFromFormContext('0')).toBe('male');
    expect(genderFromPatient(1)).toBe('male');
    expect(genderFromPatient(0)).toBe('female');
    expect(genderFromPatient(null)).toBeNull();
    expect(genderFromPatient(2)).toBeNull();
    for (const g of ['male', 'female'] as const) {
      expect(genderFromPatient(genderToPatient(g))).toBe(g);
      expect(genderFromFormContext(genderToFormContext(g))).toBe(g);
    }
  });
});

describe('layout math (forms §9)', () => {
  it('WID-16: date columns are 180 wide', () => {
    expect(tableColumnMinWidth(node('date'))).toBe(180);
    expect(tableColumnMinWidth(node('datetime'))).toBe(180);
  });

  it('WID-17: int, real and text columns are 150 plus 16 per unit character', () => {
    expect(tableColumnMinWidth(node('int'))).toBe(150);
    expect(tableColumnMinWidth(node('real', { units: 'mmol/L' }))).toBe(150 + 16 * 6);
    expect(tableColumnMinWidth(node('text', { units: 'kg,斤' }))).toBe(150 + 16 * 2);
  });

  it('WID-18: other columns are the larger of 150 and 16 per label character plus 40', () => {
    expect(tableColumnMinWidth(node('radio', {}, '性别'))).toBe(150);
    expect(tableColumnMinWidth(node('radio', {}, '是否有药物过敏史（含食物）'))).toBe(16 * 13 + 40);
  });

  it('WID-19: the grid has 24 columns and a span is cols divided by the section crfCols', () => {
    expect(GRID_COLUMNS).toBe(24);
    expect(gridSpan(1, 3)).toBe(8);
    expect(gridSpan(2, 3)).toBe(16);
    expect(gridSpan(undefined, 2)).toBe(12);
    expect(gridSpan(1, undefined)).toBe(24);
    expect(gridSpan(5, 4)).toBe(24);
    expect(gridSpan('1', '0')).toBe(24);
  });

  it('WID-10: slider range from valueMin/valueMax, else first and last option, step valueStep, defaults 0..10 step 1', () => {
    expect(sliderRange({})).toEqual({ min: 0, max: 10, step: 1 });
    expect(sliderRange({ valueMin: '1', valueMax: 100, valueStep: 5 })).toEqual({ min: 1, max: 100, step: 5 });
    expect(sliderRange({ optionsValue: '2,4,6,8' })).toEqual({ min: 2, max: 8, step: 1 });
    expect(sliderRange({ valueStep: 0 })).toEqual({ min: 0, max: 10, step: 1 });
  });
});
