import { describe, expect, it } from 'vitest';
import {
  SPINE_MANUAL_CANVAS,
  SPINE_MEASURES,
  SPINE_MEASURE_DEFINITIONS,
  SPINE_MSG,
  SPINE_UNITS,
  canAddLine,
  canDrawReference,
  checkMeasurementImage,
  lineLength,
  referenceScale,
  roundLength,
  roundMeasureAngle,
  slipRatio,
  toCentimetres,
} from './measure.js';
import type { LineCode, SpineLine } from './measure.js';

const line = (x1: number, y1: number, x2: number, y2: number): SpineLine => ({
  start: { x: x1, y: y1 },
  end: { x: x2, y: y2 },
});

const coded = (code: LineCode, l: SpineLine) => ({ ...l, lineCode: code });

describe('manual measures as data', () => {
  it('SPM-02, SPM-05, SPM-12: the 11 measures, the 500×800 canvas and the units none, mm, cm, m, in', () => {
    expect(SPINE_MEASURES).toEqual(['SVA', 'TK', 'LL', 'PI', 'PT', 'SS', 'ISH', 'LS', 'LCA', 'CL', 'CVH']);
    expect(SPINE_MANUAL_CANVAS).toEqual({ width: 500, height: 800 });
    expect(SPINE_UNITS).toEqual(['none', 'mm', 'cm', 'm', 'in']);
    for (const m of SPINE_MEASURES) {
      const def = SPINE_MEASURE_DEFINITIONS[m];
      expect(def.name).toBe(m);
      expect(def.title).toMatch(/[\u4e00-\u9fff]/);
      if (def.kind === 'angle') expect(def.maxLines).toBe(2);
    }
    const kinds = SPINE_MEASURES.filter((m) => SPINE_MEASURE_DEFINITIONS[m].kind === 'distance');
    expect(kinds).toEqual(['SVA', 'ISH', 'CVH']);
  });

  it('SPM-03: ISH and CVH lines carry the codes a–d, no other tool codes its lines', () => {
    for (const m of SPINE_MEASURES) {
      expect(SPINE_MEASURE_DEFINITIONS[m].lineCodes).toEqual(m === 'ISH' || m === 'CVH' ? ['a', 'b', 'c', 'd'] : null);
    }
  });
});

describe('measurement image type', () => {
  it('SPM-04: JPEG, PNG or BMP only, else 请上传JPG/PNG/BMP 格式!', () => {
    for (const type of ['image/jpeg', 'image/png', 'image/bmp', 'image/x-ms-bmp']) {
      expect(checkMeasurementImage({ type, name: 'x' })).toBeNull();
    }
    for (const type of ['image/gif', 'image/webp', 'application/dicom', 'image/tiff', 'application/pdf']) {
      expect(checkMeasurementImage({ type, name: 'x.png' })).toBe('请上传JPG/PNG/BMP 格式!');
    }
    expect(checkMeasurementImage({ type: '', name: 'FILM.BMP' })).toBeNull();
    expect(checkMeasurementImage({ type: '', name: 'film.jpeg' })).toBeNull();
    expect(checkMeasurementImage({ name: 'film.dcm' })).toBe(SPINE_MSG.imageType);
    expect(checkMeasurementImage({})).toBe(SPINE_MSG.imageType);
  });
});

describe('drawing rules', () => {
  const ref = line(10, 10, 110, 10);

  it('SPM-07: an angle tool takes at most 2 lines; the third shows 线段条数已达上限', () => {
    for (const m of ['TK', 'LL', 'PI', 'PT', 'SS', 'LS', 'LCA', 'CL'] as const) {
      expect(canAddLine(m, { lines: [] })).toEqual({ ok: true, lineCode: null });
      expect(canAddLine(m, { lines: [{}] }).ok).toBe(true);
      expect(canAddLine(m, { lines: [{}, {}] })).toEqual({ ok: false, reason: 'limit', message: '线段条数已达上限' });
    }
  });

  it('SPM-09: a distance tool draws its reference line first', () => {
    for (const m of ['SVA', 'ISH', 'CVH'] as const) {
      expect(canAddLine(m, { lines: [], referenceLine: null })).toMatchObject({
        ok: false,
        reason: 'reference_required',
      });
      expect(canAddLine(m, { lines: [], referenceLine: ref }).ok).toBe(true);
    }
    expect(canAddLine('SVA', { lines: [{}], referenceLine: ref })).toMatchObject({ ok: false, reason: 'limit' });
  });

  it('SPM-03: ISH and CVH lines get the codes a–d in order, a freed code first, no fifth line', () => {
    const next = (codes: LineCode[]) =>
      canAddLine('ISH', { lines: codes.map((lineCode) => ({ lineCode })), referenceLine: ref });
    expect(next([])).toEqual({ ok: true, lineCode: 'a' });
    expect(next(['a', 'b'])).toEqual({ ok: true, lineCode: 'c' });
    expect(next(['a', 'c', 'd'])).toEqual({ ok: true, lineCode: 'b' });
    expect(next(['a', 'b', 'c', 'd'])).toMatchObject({ ok: false, message: SPINE_MSG.lineLimit });
    expect(canAddLine('CVH', { lines: [{ lineCode: 'a' }], referenceLine: ref })).toEqual({ ok: true, lineCode: 'b' });
  });

  it('SPM-10: the reference-line button is disabled once a reference line exists', () => {
    expect(canDrawReference({ referenceLine: null })).toBe(true);
    expect(canDrawReference({})).toBe(true);
    expect(canDrawReference({ referenceLine: ref })).toBe(false);
  });
});

describe('scale and lengths', () => {
  const ref = line(0, 0, 300, 400); // 500 px

  it('SPM-09, SPM-11: the reference line real length over its pixel length; not positive → scale 1', () => {
    expect(referenceScale(ref, 50)).toBe(0.1);
    expect(referenceScale(ref, '25')).toBe(0.05);
    for (const bad of [0, -3, '', ' ', 'abc', null, undefined, Number.NaN, Infinity]) {
      expect(referenceScale(ref, bad), String(bad)).toBe(1);
    }
    expect(referenceScale(null, 50)).toBe(1);
    expect(referenceScale(line(5, 5, 5, 5), 50)).toBe(1);
  });

  it('SPM-14: lengths are pixel length × scale to 2 decimals; angles to integers', () => {
    const scale = referenceScale(ref, 50);
    expect(lineLength(line(0, 0, 0, 123.456), scale)).toBe(12.35);
    expect(lineLength(line(0, 0, 10, 0), 1 / 3)).toBe(3.33);
    expect(roundLength(1.005)).toBe(1.01);
    expect(roundLength(-2.675)).toBe(-2.68);
    expect(roundMeasureAngle(44.5)).toBe(45);
    expect(roundMeasureAngle(44.49)).toBe(44);
    expect(roundMeasureAngle(Number.NaN)).toBeNaN();
  });

  it('SVA in centimetres for its bands from each unit; none has no length', () => {
    expect(toCentimetres(50, 'mm')).toBeCloseTo(5, 12);
    expect(toCentimetres(5, 'cm')).toBe(5);
    expect(toCentimetres(0.05, 'm')).toBeCloseTo(5, 12);
    expect(toCentimetres(2, 'in')).toBeCloseTo(5.08, 12);
    expect(toCentimetres(5, 'none')).toBeNull();
  });

  it('slip ratio (forms §9 ISH, CVH): the mean of a, b, c over d; null until all four are drawn', () => {
    const lines = [
      coded('a', line(0, 0, 10, 0)),
      coded('b', line(0, 0, 20, 0)),
      coded('c', line(0, 0, 30, 0)),
      coded('d', line(0, 0, 0, 80)),
    ];
    expect(slipRatio(lines)).toBe(0.25);
    expect(slipRatio(lines.slice(0, 3))).toBeNull();
    expect(slipRatio([...lines.slice(0, 3), coded('d', line(1, 1, 1, 1))])).toBeNull();
  });
});
