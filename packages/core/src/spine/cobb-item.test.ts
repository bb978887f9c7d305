import { describe, expect, it } from 'vitest';
import { evaluateForm } from '../crf/evaluate-form.js';
import type { CrfDefinition, CrfNode } from '../crf/crf-definition.schema.js';
import { cobbAngles } from './cobb.js';
import {
  SPINE_COBB_INVALID,
  SPINE_COBB_MISMATCH,
  defaultSpineTemplate,
  readSpineCobb,
  spineCobbError,
  spineCobbLevels,
  spineCobbRules,
  spineCobbTargetValue,
  spineCobbValue,
} from './cobb-item.js';

const W = 1084;
const H = 2437;

/** The template with vertebra 5 tilted by moving its right corners up and vertebra 11's down. */
function tilted(): number[] {
  const l = defaultSpineTemplate();
  const half = l.length / 2;
  l[half + 5 * 4 + 1] = l[half + 5 * 4 + 1]! - 0.01;
  l[half + 5 * 4 + 3] = l[half + 5 * 4 + 3]! - 0.01;
  l[half + 11 * 4 + 1] = l[half + 11 * 4 + 1]! + 0.012;
  l[half + 11 * 4 + 3] = l[half + 11 * 4 + 3]! + 0.012;
  return l;
}

const node = (type: CrfNode['type'], name: string, option: CrfNode['option'] = {}): CrfNode => ({
  type,
  name,
  title: name,
  option,
  children: [],
});

const definition: CrfDefinition = {
  title: '脊柱影像',
  children: [
    node('section', 'sec', {}),
    node('spineCobb', 'xray', { ptItem: 'cobb_pt', mtItem: 'cobb_mt', tlItem: 'cobb_tl', curveTypeItem: 'curve' }),
    node('real', 'cobb_pt', { validate: { max: 40 } }),
    node('real', 'cobb_mt'),
    node('real', 'cobb_tl'),
    node('input', 'curve'),
  ],
} as CrfDefinition;

describe('the spineCobb item value', () => {
  it('SPA-04: the stored value is the recognition result with the angles of cobbAngles at full precision', () => {
    const value = spineCobbValue({ landmarks: tilted(), imgWidth: W, imgHeight: H, imgURL: 'abc' });
    const cobb = cobbAngles(tilted(), W, H);
    expect(value.angles.pt).toEqual({ angle: cobb.pt.angle, idxs: cobb.pt.idxs, apex: null });
    expect(value.curve_type).toBe(cobb.curveType);
    expect(value.midpoint_lines).toHaveLength(17);
    expect(value.imgURL).toBe('abc');
    expect(readSpineCobb(JSON.stringify(value))).toEqual(value);
    expect(spineCobbError(JSON.stringify(value))).toBeNull();
  });

  it('SPA-05: the default template is 17 vertebrae, 68 x values then 68 y values, normalised, all angles 0', () => {
    const l = defaultSpineTemplate();
    expect(l).toHaveLength(136);
    expect(l.every((v) => v >= 0 && v <= 1)).toBe(true);
    const ys = l.slice(68);
    for (let k = 1; k < 17; k++) expect(ys[4 * k]!).toBeGreaterThan(ys[4 * k - 1]!);
    const value = spineCobbValue({ landmarks: l, imgWidth: W, imgHeight: H, imgURL: '' });
    expect([value.angles.pt.angle, value.angles.mt.angle, value.angles.tl.angle]).toEqual([0, 0, 0]);
  });

  it('SPA-04: a save is refused when the value is not a result or its angles are not those of its landmarks', () => {
    expect(spineCobbError('not json')).toBe(SPINE_COBB_INVALID);
    expect(spineCobbError(JSON.stringify({ curve_type: 'C' }))).toBe(SPINE_COBB_INVALID);
    const value = spineCobbValue({ landmarks: tilted(), imgWidth: W, imgHeight: H, imgURL: 'abc' });
    const forged = { ...value, angles: { ...value.angles, pt: { ...value.angles.pt, angle: 12 } } };
    expect(spineCobbError(JSON.stringify(forged))).toBe(SPINE_COBB_MISMATCH);
  });

  it('SPA-04: each angle carries its apex (our field); a value saved without it stays valid, a forged one is refused', () => {
    // T5–T11 bowing 60 px to the right at T8, T5 tilted 12° one way and T11 the other.
    const bowed = tilted();
    const half = bowed.length / 2;
    for (let k = 4; k <= 10; k++) {
      for (let c = 0; c < 4; c++) bowed[4 * k + c] = bowed[4 * k + c]! + (60 * Math.sin((Math.PI * (k - 4)) / 6)) / W;
    }
    const tilt = (k: number, dy: number) => {
      bowed[half + 4 * k + 1] = bowed[half + 4 * k + 1]! + dy;
      bowed[half + 4 * k + 3] = bowed[half + 4 * k + 3]! + dy;
    };
    tilt(5, 0.01);
    tilt(11, -0.012);
    tilt(4, -0.012);
    tilt(10, 0.012);
    const value = spineCobbValue({ landmarks: bowed, imgWidth: W, imgHeight: H, imgURL: 'abc' });
    expect(value.angles.pt.idxs).toEqual([4, 10]);
    expect(value.angles.pt.apex).toBe(7);
    expect(spineCobbLevels(value).pt).toEqual({ ends: [4, 10], apex: 7 });
    expect(spineCobbError(JSON.stringify(value))).toBeNull();
    expect(readSpineCobb(JSON.stringify(value))).toEqual(value);
    // Saved before the apex was stored: valid, and its levels are read from its landmarks.
    const old = {
      ...value,
      angles: Object.fromEntries(
        Object.entries(value.angles).map(([key, { angle, idxs }]) => [key, { angle, idxs }]),
      ) as typeof value.angles,
    };
    expect(spineCobbError(JSON.stringify(old))).toBeNull();
    expect(spineCobbLevels(readSpineCobb(JSON.stringify(old))!).pt).toEqual({ ends: [4, 10], apex: 7 });
    for (const apex of [8, 7.5, null]) {
      const forged = { ...value, angles: { ...value.angles, pt: { ...value.angles.pt, apex } } };
      expect(spineCobbError(JSON.stringify(forged))).toBe(SPINE_COBB_MISMATCH);
    }
    expect(
      spineCobbError(JSON.stringify({ ...value, angles: { ...value.angles, pt: { ...value.angles.pt, apex: -1 } } })),
    ).toBe(SPINE_COBB_INVALID);
  });

  it('SPA-10: target items receive the angles rounded to 2 decimals and the curve type', () => {
    const value = JSON.stringify(spineCobbValue({ landmarks: tilted(), imgWidth: W, imgHeight: H, imgURL: '' }));
    const pt = spineCobbTargetValue(value, 'pt') as number;
    expect(Math.round(pt * 100) / 100).toBe(pt);
    expect(spineCobbTargetValue(value, 'curve_type')).toMatch(/^[CS]$/);
    expect(spineCobbTargetValue('', 'pt')).toBe('');
    expect(spineCobbTargetValue(value, 'other')).toBeNull();
  });

  it('SPA-01: the form engine calculates the named items from the result and range-checks them', () => {
    expect(spineCobbRules(definition.children).map((r) => r.target)).toEqual([
      'cobb_pt',
      'cobb_mt',
      'cobb_tl',
      'curve',
    ]);
    const raw = spineCobbValue({ landmarks: tilted(), imgWidth: W, imgHeight: H, imgURL: 'k' });
    const state = evaluateForm(definition, { xray: JSON.stringify(raw) }, { now: new Date('2026-01-01T00:00:00Z') });
    const cobb = cobbAngles(tilted(), W, H);
    expect(Number(state.values.cobb_pt)).toBe(Math.round(cobb.pt.angle * 100) / 100);
    expect(Number(state.values.cobb_mt)).toBe(Math.round(cobb.mt.angle * 100) / 100);
    expect(state.values.curve).toBe(cobb.curveType);
    expect(state.items.cobb_pt!.calculated).toBe(true);
    expect(state.items.cobb_pt!.readOnly).toBe(true);
    // The main angle is past the item's maximum of 40: range-checked like a typed value.
    expect(cobb.pt.angle).toBeGreaterThan(40);
    expect(state.errors.map((e) => e.item)).toEqual(['cobb_pt']);
    // Cleared: the targets empty with it.
    const cleared = evaluateForm(
      definition,
      { cobb_pt: '17', cobb_mt: '5', curve: 'S' },
      { now: new Date('2026-01-01T00:00:00Z') },
    );
    expect(cleared.values.xray).toBeUndefined();
    expect(
      [cleared.values.cobb_pt, cleared.values.cobb_mt, cleared.values.curve].every((v) => v === undefined || v === ''),
    ).toBe(true);
  });

  it('SPA-04: the engine refuses a forged result on the item itself', () => {
    const raw = spineCobbValue({ landmarks: tilted(), imgWidth: W, imgHeight: H, imgURL: 'k' });
    const forged = { ...raw, curve_type: raw.curve_type === 'C' ? 'S' : 'C' };
    const state = evaluateForm(definition, { xray: JSON.stringify(forged) }, { now: new Date('2026-01-01T00:00:00Z') });
    expect(state.errors.map((e) => [e.item, e.message])).toContainEqual(['xray', SPINE_COBB_MISMATCH]);
  });
});
