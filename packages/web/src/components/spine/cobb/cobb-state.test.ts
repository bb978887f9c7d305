import { describe, expect, it } from 'vitest';
import { cobbAngles, defaultSpineTemplate, spineCobbValue } from '@ecrf/core';
import {
  COBB_CANVAS,
  CURVE_COLOURS,
  DETECTION_SCALE,
  addVertebra,
  clampDetectionScale,
  cornerAt,
  fitImage,
  formatAngle,
  fromCanvas,
  levelTexts,
  moveCorner,
  recomputed,
  removeVertebra,
  toCanvas,
  vertebraCount,
  wheelZoom,
} from './cobb-state';

/** The template bowed 60 px to the right from T5 to T11, most at T8, with T5 and T11 tilted against each other. */
function bowed(): number[] {
  const l = defaultSpineTemplate();
  const half = l.length / 2;
  for (let k = 4; k <= 10; k++) {
    for (let c = 0; c < 4; c++) l[4 * k + c] = l[4 * k + c]! + (30 * Math.sin((Math.PI * (k - 4)) / 6)) / 542;
  }
  for (const [k, dy] of [
    [4, -0.012],
    [10, 0.012],
  ] as const) {
    l[half + 4 * k + 1] = l[half + 4 * k + 1]! + dy;
    l[half + 4 * k + 3] = l[half + 4 * k + 3]! + dy;
  }
  return l;
}

const base = () => spineCobbValue({ landmarks: defaultSpineTemplate(), imgWidth: 542, imgHeight: 1218, imgURL: 'k' });

describe('automatic Cobb tool helpers', () => {
  it('SPA-06: the canvas is 1084 × 2437 and an image is fitted into it, aspect kept, centred', () => {
    expect(COBB_CANVAS).toEqual({ width: 1084, height: 2437 });
    expect(fitImage(542, 1218.5)).toEqual({ x: 0, y: 0, width: 1084, height: 2437 });
    const wide = fitImage(2000, 1000);
    expect(wide.width).toBe(1084);
    expect(wide.height).toBe(542);
    expect(wide.y).toBeCloseTo((2437 - 542) / 2, 9);
    const rect = fitImage(800, 1000);
    const p: [number, number] = [0.25, 0.75];
    const back = fromCanvas(rect, toCanvas(rect, p));
    expect(back[0]).toBeCloseTo(0.25, 12);
    expect(back[1]).toBeCloseTo(0.75, 12);
  });

  it('SPA-07: a wheel step zooms by 10%, within 0.1 to 10', () => {
    expect(wheelZoom(1, -100)).toBeCloseTo(1.1, 12);
    expect(wheelZoom(1, 100)).toBeCloseTo(1 / 1.1, 12);
    expect(wheelZoom(9.5, -1)).toBe(10);
    expect(wheelZoom(0.105, 1)).toBe(0.1);
    let zoom = 1;
    for (let i = 0; i < 100; i++) zoom = wheelZoom(zoom, -1);
    expect(zoom).toBe(10);
  });

  it('SPA-08: the detection scale stays within 1 to 4', () => {
    expect(DETECTION_SCALE).toEqual({ min: 1, max: 4 });
    expect(clampDetectionScale(0)).toBe(1);
    expect(clampDetectionScale(2.5)).toBe(2.5);
    expect(clampDetectionScale(9)).toBe(4);
  });

  it('SPA-09: pt is orange, tl lime, mt magenta', () => {
    expect(CURVE_COLOURS).toEqual({ pt: 'orange', mt: 'magenta', tl: 'lime' });
  });

  it('SPA-10: angles show with 2 decimals; none shows a dash', () => {
    expect(formatAngle(12.345678)).toBe('12.35°');
    expect(formatAngle(0)).toBe('0.00°');
    expect(formatAngle(null)).toBe('—');
    expect(formatAngle(Number.NaN)).toBe('—');
  });

  it('SPA-10: each angle shows the vertebrae it measured: end vertebrae and apex (T5–T11，顶椎 T8)', () => {
    const value = recomputed(base(), bowed());
    expect(value.angles.pt.idxs).toEqual([4, 10]);
    expect(levelTexts(value)).toEqual({ pt: 'T5–T11，顶椎 T8', mt: 'T1–T5', tl: 'T11–T12，顶椎间盘 T11/T12' });
    // A value saved before the apex was stored shows the same levels, read from its landmarks.
    const { apex: _apex, ...old } = value.angles.pt;
    expect(levelTexts({ ...value, angles: { ...value.angles, pt: old } }).pt).toBe('T5–T11，顶椎 T8');
    // The template: every angle 0, no curve to name.
    expect(levelTexts(base())).toEqual({ pt: '', mt: '', tl: '' });
    // T1 removed: the names would shift, so the vertebrae are numbered from the top.
    expect(levelTexts(recomputed(value, removeVertebra(value.landmarks, 0))).pt).toBe('第4节–第10节，顶椎 第7节');
    // A vertebra added below L5 keeps T1…L5 named.
    expect(levelTexts(recomputed(value, addVertebra(value.landmarks))).pt).toBe('T5–T11，顶椎 T8');
  });

  it('SPA-05: moving a corner changes only its x and y, kept on the image, and the angles follow at full precision', () => {
    const value = base();
    const moved = moveCorner(value.landmarks, 5 * 4 + 1, [0.6, 0.2]);
    expect(cornerAt(moved, 21)).toEqual([0.6, 0.2]);
    expect(moved.filter((v, i) => v !== value.landmarks[i])).toHaveLength(2);
    expect(cornerAt(moveCorner(value.landmarks, 0, [-1, 2]), 0)).toEqual([0, 1]);
    const tilted = moveCorner(moveCorner(value.landmarks, 5 * 4 + 1, [0.53, 0.3]), 5 * 4 + 3, [0.53, 0.33]);
    const next = recomputed(value, tilted);
    expect(next.angles.pt.angle).toBe(cobbAngles(tilted, 542, 1218).pt.angle);
    expect(next.angles.pt.angle).toBeGreaterThan(0);
    expect(next.imgURL).toBe('k');
  });

  it('SPA-05: a vertebra is added below the last and removed again; two are always kept', () => {
    const l = defaultSpineTemplate();
    const more = addVertebra(l);
    expect(vertebraCount(more)).toBe(18);
    expect(cornerAt(more, 17 * 4)[1]).toBeGreaterThan(cornerAt(more, 16 * 4 + 2)[1]);
    expect(removeVertebra(more, 17)).toEqual(l);
    const less = removeVertebra(l, 0);
    expect(vertebraCount(less)).toBe(16);
    expect(cornerAt(less, 0)).toEqual(cornerAt(l, 4));
    const two = defaultSpineTemplate(2);
    expect(removeVertebra(two, 0)).toEqual(two);
  });
});
