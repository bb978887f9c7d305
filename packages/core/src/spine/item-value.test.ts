import { describe, expect, it } from 'vitest';
import { crfDefinitionSchema, type CrfDefinition } from '../crf/crf-definition.schema.js';
import { evaluateForm } from '../crf/evaluate-form.js';
import { normalizeValue } from '../crf/value-shapes.js';
import { item } from '../crf/test/fixtures.js';
import { lintDefinition } from '../crf/linter.js';
import { valueText } from '../crf/record-values.js';
import { readSpineMeasure, spineMeasureError, spineMeasureTargetValue, SPINE_VALUE_INVALID } from './item-value.js';

const seg = (x1: number, y1: number, x2: number, y2: number) => ({ start: { x: x1, y: y1 }, end: { x: x2, y: y2 } });

const definition: CrfDefinition = crfDefinitionSchema.parse({
  title: '影像学检查',
  option: {},
  children: [item('spineMeasure', 'spine_manual', '脊柱手动测量')],
});
const context = { now: new Date(Date.UTC(2026, 10, 27, 2, 0, 0)) };

const tk = {
  imgUrl: 'abc123',
  TK: { lines: [seg(0, 0, 100, 0), seg(0, 0, 100, 50)], angle: 27, diagnosis: '胸椎后凸正常' },
};

describe('spineMeasure item type', () => {
  it('SPM-01, SPM-02: a CRF item holds the manual measurement data as JSON, checked by the core schema', () => {
    const state = evaluateForm(definition, { spine_manual: tk }, context);
    expect(state.errors).toEqual([]);
    const stored = state.values.spine_manual;
    expect(typeof stored).toBe('string');
    const read = readSpineMeasure(stored);
    expect(read?.imgUrl).toBe('abc123');
    expect(read?.TK?.angle).toBe(27);
    expect(read?.TK?.lines[0]).toMatchObject({ handles: [], lineCode: null, linelength: null });
    expect(normalizeValue(definition.children[0]!, '')).toBeUndefined();
  });

  it('SPM-07, SPM-03: a save is refused for a third line on an angle tool or an uncoded ISH line', () => {
    const third = { ...tk, TK: { ...tk.TK, lines: [...tk.TK.lines, seg(1, 1, 5, 9)] } };
    expect(spineMeasureError(third)).toBe('线段条数已达上限');
    const state = evaluateForm(definition, { spine_manual: JSON.stringify(third) }, context);
    expect(state.errors.map((e) => e.message)).toEqual(['线段条数已达上限']);
    expect(spineMeasureError({ imgUrl: 'x', ISH: { lines: [seg(0, 0, 1, 1)] } })).toBe(
      '线段编号应为 a、b、c、d 且不重复',
    );
  });

  it('SPM-02: text that is not the measurement data is refused with 脊柱测量数据格式有误', () => {
    expect(spineMeasureError('{not json')).toBe(SPINE_VALUE_INVALID);
    expect(spineMeasureError({ TK: {} })).toBe(SPINE_VALUE_INVALID);
    expect(spineMeasureError({ imgUrl: 'x', SVA: { unit: 'ft' } })).toBe(SPINE_VALUE_INVALID);
    expect(readSpineMeasure('{not json')).toBeNull();
    const state = evaluateForm(definition, { spine_manual: '{not json' }, context);
    expect(state.errors.map((e) => e.message)).toEqual([SPINE_VALUE_INVALID]);
  });

  it('SPM-01: measureItems name ordinary items that are calculated from the measurement (number and diagnosis)', () => {
    const withTargets: CrfDefinition = crfDefinitionSchema.parse({
      title: '影像学检查',
      option: {},
      children: [
        item('spineMeasure', 'spine_manual', '脊柱手动测量', {
          measureItems: { TK: 'tk_angle', 'TK.diagnosis': 'tk_dx', SVA: 'sva', ISH: 'ish_ratio' },
        }),
        item('int', 'tk_angle', '胸椎后凸角', { validate: { min: 0, max: 25 } }),
        item('text', 'tk_dx', '胸椎后凸诊断'),
        item('real', 'sva', 'SVA'),
        item('real', 'ish_ratio', 'ISH 滑脱比值'),
      ],
    });
    expect(lintDefinition(withTargets).errors).toEqual([]);
    const value = {
      ...tk,
      // C7 (the higher end) 65 px anterior of the S1 corner at 0.1 cm a pixel: 6.5 cm, not the line's length.
      SVA: {
        lines: [{ ...seg(315, 100, 250, 700), linelength: 60.35 }],
        unit: 'cm',
        scale: 0.1,
        diagnosis: '矢状面中度失衡',
      },
      ISH: {
        lines: (['a', 'b', 'c', 'd'] as const).map((code, i) => ({
          ...seg(0, 0, i === 3 ? 100 : 10, 0),
          lineCode: code,
        })),
      },
    };
    const state = evaluateForm(withTargets, { spine_manual: JSON.stringify(value) }, context);
    expect(state.values).toMatchObject({ tk_angle: '27', tk_dx: '胸椎后凸正常', sva: '6.5', ish_ratio: '0.1' });
    expect(state.items.tk_angle?.calculated).toBe(true);
    // The targets are range-checked like any item: 27 is above the max of 25.
    expect(state.errors.map((e) => e.item)).toContain('tk_angle');
    expect(spineMeasureTargetValue(JSON.stringify(value), 'LL')).toBeNull();
    expect(spineMeasureTargetValue(JSON.stringify(value), 'TK.symptom')).toBeNull();
    expect(spineMeasureTargetValue('', 'TK')).toBeNull();
  });

  it('SPM-02: print, overview, audit and exports read the measurement as numbers and diagnoses, not JSON', () => {
    const value = JSON.stringify({
      ...tk,
      SVA: { lines: [{ ...seg(300, 100, 340, 600), linelength: 50.16 }], unit: 'mm', diagnosis: '矢状面轻度失衡' },
      PI: { lines: [seg(0, 0, 10, 0)] },
    });
    expect(valueText(definition.children[0], value)).toBe('SVA -40 mm（矢状面轻度失衡）；TK 27°（胸椎后凸正常）；PI —');
    expect(valueText(definition.children[0], '{bad')).toBe('{bad');
  });

  it('SVA is the signed horizontal offset of C7 from the S1 corner: −3 cm reads −3, on a film facing either way', () => {
    // The C7 centroid (higher end) 30 px behind the corner; 0.1 cm a pixel.
    const right = { imgUrl: 'x', SVA: { lines: [seg(220, 150, 250, 650)], unit: 'cm', scale: 0.1 } };
    expect(spineMeasureTargetValue(right, 'SVA')).toBe(-3);
    const left = { imgUrl: 'x', facing: 'left', SVA: { lines: [seg(280, 650, 250, 150)], unit: 'cm', scale: 0.1 } };
    expect(readSpineMeasure(left)?.facing).toBe('left');
    expect(spineMeasureTargetValue(left, 'SVA')).toBe(3);
    expect(readSpineMeasure(right)?.facing).toBe('right');
    expect(spineMeasureError({ imgUrl: 'x', facing: 'up' })).toBe(SPINE_VALUE_INVALID);
  });
});
