import { describe, expect, it } from 'vitest';
import type { CrfNode } from '../crf/crf-definition.schema.js';
import { bodyMeasureOf, bodyMeasureValue } from './sae-patient-measures.js';

const node = (name: string, title: string, type: CrfNode['type'], units?: string): CrfNode => ({
  name,
  title,
  type,
  option: units ? { units } : {},
  children: [],
});

describe('SAE report 身高/体重: which items and values count (issue 37)', () => {
  it('the item named height/weight or titled 身高/体重 (a bracketed unit allowed), number items only', () => {
    expect(bodyMeasureOf(node('height', '身高', 'real', 'cm'))).toBe('height');
    expect(bodyMeasureOf(node('HEIGHT', 'Body height', 'int', 'cm'))).toBe('height');
    expect(bodyMeasureOf(node('sg', '身高（cm）', 'number'))).toBe('height');
    expect(bodyMeasureOf(node('tz', '体重', 'real', 'kg'))).toBe('weight');
    // Not the height: another title, a text item, a name merely containing the word.
    expect(bodyMeasureOf(node('sg', '父亲身高', 'real', 'cm'))).toBeNull();
    expect(bodyMeasureOf(node('height', '身高', 'input'))).toBeNull();
    expect(bodyMeasureOf(node('birth_weight', '出生体重', 'real', 'g'))).toBeNull();
  });

  it('the value in cm or kg, converted from a known unit; blank without a unit or with one that does not convert', () => {
    expect(bodyMeasureValue(node('height', '身高', 'real', 'cm'), 'height', { height: '172' })).toBe('172');
    expect(bodyMeasureValue(node('height', '身高', 'real', 'm'), 'height', { height: 1.72 })).toBe('172');
    expect(bodyMeasureValue(node('sg', '身高（cm）', 'real'), 'height', { sg: '165.5' })).toBe('165.5');
    expect(bodyMeasureValue(node('w', '体重', 'real', 'kg,斤'), 'weight', { w: '130', w_unit: '斤' })).toBe('65');
    expect(bodyMeasureValue(node('height', '身高', 'real'), 'height', { height: '172' })).toBeNull();
    expect(bodyMeasureValue(node('w', '体重', 'real', 'kg/m²'), 'weight', { w: '60' })).toBeNull();
    expect(bodyMeasureValue(node('height', '身高', 'real', 'cm'), 'height', { height: '' })).toBeNull();
  });
});
