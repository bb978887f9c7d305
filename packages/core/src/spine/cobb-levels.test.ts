import { describe, expect, it } from 'vitest';
import { cobbAngles } from './cobb.js';
import type { Point2 } from './cobb.js';
import {
  SPINE_VERTEBRA_NAMES,
  apexName,
  cobbLevels,
  curveApex,
  curveLevels,
  curveLevelsText,
  vertebraName,
} from './cobb-levels.js';

const W = 1084;
const H = 2437;

/**
 * 17 vertebrae 120 × 80 px, 120 px apart down the image: centre x from `shape`, tilt (degrees, clockwise on the
 * image) from `tilt`; x values then y values, as the detector sends them.
 */
function spine(shape: (k: number) => number, tilt: (k: number) => number, count = 17): number[] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let k = 0; k < count; k += 1) {
    const t = (tilt(k) * Math.PI) / 180;
    const [c, s] = [Math.cos(t), Math.sin(t)];
    const [cx, cy] = [shape(k), 150 + 120 * k];
    for (const [dx, dy] of [
      [-60, -40],
      [60, -40],
      [-60, 40],
      [60, 40],
    ] as const) {
      xs.push(cx + c * dx - s * dy);
      ys.push(cy + s * dx + c * dy);
    }
  }
  return [...xs, ...ys];
}

/** A bump of height `height` between vertebrae `upper` and `lower` peaking at `peak` (a real level), flat outside. */
const bump = (upper: number, lower: number, peak: number, height: number) => (k: number) => {
  if (k <= upper || k >= lower) return 500;
  const t = k <= peak ? (k - upper) / (peak - upper) : (lower - k) / (lower - peak);
  return 500 + height * Math.sin((Math.PI / 2) * t);
};

/** Tilts turning from +20° at `upper` to −20° at `lower`, easing back towards level outside. */
const turn = (upper: number, lower: number) => (k: number) => {
  if (k <= upper) return 20 - 4 * (upper - k);
  if (k >= lower) return -20 + 4 * (k - lower);
  return 20 * Math.cos((Math.PI * (k - upper)) / (lower - upper));
};

/** The pixel corners of a spine, as `cobbAngles` gives them. */
const pointsOf = (landmarks: readonly number[]): Point2[] => cobbAngles(landmarks, W, H, { units: 'pixels' }).points;

describe('Cobb levels: end vertebrae and apex of each angle', () => {
  it('a curve T5–T11 bulging most at T8: ends T5 and T11, apex T8', () => {
    const r = cobbAngles(spine(bump(4, 10, 7, 120), turn(4, 10)), W, H);
    expect(r.pt.idxs).toEqual([4, 10]);
    expect(r.pt.angle).toBeCloseTo(40, 6);
    const levels = cobbLevels(r);
    expect(levels.pt).toEqual({ ends: [4, 10], apex: 7 });
    expect(curveLevelsText(levels.pt, 17)).toBe('T5–T11，顶椎 T8');
  });

  it('a curve T5–T12 bulging most between T8 and T9: the disc is the apex', () => {
    const r = cobbAngles(spine(bump(4, 11, 7.5, 120), turn(4, 11)), W, H);
    expect(r.pt.idxs).toEqual([4, 11]);
    expect(curveLevels(r, 'pt')).toEqual({ ends: [4, 11], apex: 7.5 });
    expect(curveLevelsText(curveLevels(r, 'pt'), 17)).toBe('T5–T12，顶椎间盘 T8/T9');
  });

  it('the apex is the vertebra farthest from the chord, or its disc when the peak through it and its neighbours is nearer the disc', () => {
    // Deviations (px) of T5…T12 from the line joining T5 and T12, either side of it.
    const apexOf = (deviations: readonly number[]) =>
      curveApex(
        pointsOf(
          spine(
            (k) => 500 + (deviations[k - 4] ?? 0),
            () => 0,
          ),
        ),
        4,
        11,
      );
    expect(apexOf([0, 40, 80, 100, 80, 40, 20, 0])).toBe(7);
    // Two equally far: their disc.
    expect(apexOf([0, 40, 80, 100, 100, 40, 20, 0])).toBe(7.5);
    // Parabola through 90, 100, 95 peaks 0.17 of a level below T8: T8; through 90, 100, 97, 0.27: the disc.
    expect(apexOf([0, 50, 90, 100, 95, 60, 20, 0])).toBe(7);
    expect(apexOf([0, 50, 90, 100, 97, 60, 20, 0])).toBe(7.5);
    expect(apexOf([0, 60, 97, 100, 90, 50, 20, 0])).toBe(6.5);
    expect(apexOf([0, -60, -97, -100, -90, -50, -20, 0])).toBe(6.5);
    expect(apexOf([0, -150, -60, -40, -30, -20, -10, 0])).toBe(5);
    expect(apexOf([0, -150, -120, -80, -50, -30, -10, 0])).toBe(5.5);
    // The first of equal farthest vertebrae that are not neighbours.
    expect(apexOf([0, 100, 50, 100, 50, 20, 10, 0])).toBe(5);
  });

  it('the deviation is measured from the line joining the end vertebrae, not from the vertical', () => {
    // The whole spine leans 25 px per level; the curve T2–T10 bulges most at T6 from that slanted line.
    const lean = (k: number) => 300 + 25 * k + (bump(1, 9, 5, 100)(k) - 500);
    const r = cobbAngles(spine(lean, turn(1, 9)), W, H);
    expect(r.pt.idxs).toEqual([1, 9]);
    expect(curveLevels(r, 'pt')).toEqual({ ends: [1, 9], apex: 5 });
    expect(curveLevelsText(curveLevels(r, 'pt'), 17)).toBe('T2–T10，顶椎 T6');
  });

  it('a lumbar curve of an S spine: ends and apex named past T12 (L1–L5)', () => {
    const shape = (k: number) => bump(2, 8, 5, 110)(k) + (bump(10, 16, 13, -110)(k) - 500);
    const tilt = (k: number) => (k <= 9 ? turn(2, 8)(k) : -turn(10, 16)(k) * 1.2);
    const r = cobbAngles(spine(shape, tilt), W, H);
    expect(r.curveType).toBe('S');
    expect(r.pt.idxs).toEqual([10, 16]);
    const levels = cobbLevels(r);
    expect(levels.pt).toEqual({ ends: [10, 16], apex: 13 });
    expect(curveLevelsText(levels.pt, 17)).toBe('T11–L5，顶椎 L2');
    // The curve above it (the challenge's MT here) is the thoracic one.
    expect(levels.mt).toEqual({ ends: [2, 10], apex: 5 });
    expect(curveLevelsText(levels.mt, 17)).toBe('T3–T11，顶椎 T6');
  });

  it('two adjacent end vertebrae have their disc as apex', () => {
    const points = pointsOf(spine(bump(4, 10, 7, 120), turn(4, 10)));
    expect(curveApex(points, 7, 8)).toBe(7.5);
    expect(curveLevelsText({ ends: [7, 8], apex: 7.5 }, 17)).toBe('T8–T9，顶椎间盘 T8/T9');
  });

  it('no curve, no levels: 0°, a vertebra against itself, and a straight column has ends but no apex', () => {
    const level = cobbAngles(
      spine(
        () => 500,
        () => 0,
      ),
      W,
      H,
    );
    expect(cobbLevels(level)).toEqual({ pt: null, mt: null, tl: null });
    expect(curveLevelsText(null, 17)).toBe('');
    // Tilted vertebrae on a straight vertical column: the ends are known, no vertebra deviates.
    const straight = cobbAngles(
      spine(() => 500, turn(4, 10)),
      W,
      H,
    );
    expect(curveLevels(straight, 'pt')).toEqual({ ends: [4, 10], apex: null });
    expect(curveLevelsText(curveLevels(straight, 'pt'), 17)).toBe('T5–T11');
    expect(curveApex(pointsOf(spine(() => 500, turn(4, 10))), 5, 5)).toBeNull();
  });

  it('a missing landmark inside the curve leaves the apex unknown', () => {
    const landmarks = spine(bump(4, 10, 7, 120), turn(4, 10));
    landmarks[6 * 4] = Number.NaN;
    expect(curveApex(pointsOf(landmarks), 4, 10)).toBeNull();
  });

  it('names: T1…L5 in the landmarks order; past L5 and in a spine of fewer than 17 vertebrae, numbered', () => {
    expect(SPINE_VERTEBRA_NAMES).toHaveLength(17);
    expect([0, 11, 12, 16].map((k) => vertebraName(k, 17))).toEqual(['T1', 'T12', 'L1', 'L5']);
    expect(vertebraName(16, 18)).toBe('L5');
    expect(vertebraName(17, 18)).toBe('第18节');
    expect(vertebraName(4, 16)).toBe('第5节');
    expect(apexName(7, 17)).toBe('T8');
    expect(apexName(11.5, 17)).toBe('T12/L1');
    expect(apexName(3.5, 10)).toBe('第4节/第5节');
    expect(curveLevelsText({ ends: [2, 9], apex: 5 }, 12)).toBe('第3节–第10节，顶椎 第6节');
  });

  it('the levels are those of the pixels: normalised landmarks of the same spine give the same levels', () => {
    const pixels = spine(bump(4, 11, 7.5, 120), turn(4, 11));
    const half = pixels.length / 2;
    const normalised = pixels.map((v, i) => v / (i < half ? W : H));
    expect(cobbLevels(cobbAngles(normalised, W, H))).toEqual(cobbLevels(cobbAngles(pixels, W, H)));
  });
});
