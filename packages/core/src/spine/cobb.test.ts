import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cobbAngles, curveTypeOf, directionAngle, landmarkUnits, roundAngle } from './cobb.js';
import type { CobbResult, Point2 } from './cobb.js';

const W = 1084;
const H = 2437;

interface Vertebra {
  cx: number;
  cy: number;
  /** Degrees, clockwise on the image (y downward). */
  tilt: number;
}

/** Corners of rectangular vertebrae 120 × 80 px, flattened as the detector sends them (x values, then y values). */
function landmarksOf(vertebrae: readonly Vertebra[], size = { w: 120, h: 80 }): number[] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const { cx, cy, tilt } of vertebrae) {
    const t = (tilt * Math.PI) / 180;
    const [c, s] = [Math.cos(t), Math.sin(t)];
    for (const [dx, dy] of [
      [-size.w / 2, -size.h / 2],
      [size.w / 2, -size.h / 2],
      [-size.w / 2, size.h / 2],
      [size.w / 2, size.h / 2],
    ] as const) {
      xs.push(cx + c * dx - s * dy);
      ys.push(cy + s * dx + c * dy);
    }
  }
  return [...xs, ...ys];
}

/** 17 vertebrae 120 px apart down the image, centre x from `shape`, tilts as given. */
function spine(tilts: readonly number[], shape: (k: number) => number): number[] {
  return landmarksOf(tilts.map((tilt, k) => ({ cx: shape(k), cy: 150 + 120 * k, tilt })));
}

// Bulging left while the tilts turn clockwise to anticlockwise, as a real C curve's end vertebrae lean into it.
const cShape = (k: number) => 400 + 10 * k - 150 * Math.sin((Math.PI * k) / 16);
const sShape = (k: number) => 500 + 5 * k + 150 * Math.sin((2 * Math.PI * k) / 16);

function transform(landmarks: readonly number[], f: (p: Point2) => Point2): number[] {
  const half = landmarks.length / 2;
  const moved = Array.from({ length: half }, (_, i) => f([landmarks[i]!, landmarks[half + i]!]));
  return [...moved.map((p) => p[0]), ...moved.map((p) => p[1])];
}

function expectSameAngles(a: CobbResult, b: CobbResult): void {
  expect(b.pt.angle).toBeCloseTo(a.pt.angle, 6);
  expect(b.pt.idxs).toEqual(a.pt.idxs);
  expect(b.curveType).toBe(a.curveType);
  if (a.rule === b.rule) {
    expect(b.mt.angle).toBeCloseTo(a.mt.angle, 6);
    expect(b.tl.angle).toBeCloseTo(a.tl.angle, 6);
    expect(b.mt.idxs).toEqual(a.mt.idxs);
    expect(b.tl.idxs).toEqual(a.tl.idxs);
  }
}

/** Random spines: integer tilts (pairs with equal differences tie exactly), a smooth random centre line. */
const spineArb = fc
  .record({
    tilts: fc.array(fc.integer({ min: -35, max: 35 }), { minLength: 17, maxLength: 17 }),
    amplitude: fc.integer({ min: -250, max: 250 }),
    waves: fc.double({ min: 0.3, max: 2, noNaN: true }),
    phase: fc.double({ min: 0, max: 6, noNaN: true }),
    slant: fc.integer({ min: -20, max: 20 }),
  })
  .map(({ tilts, amplitude, waves, phase, slant }) =>
    spine(tilts, (k) => 540 + slant * k + amplitude * Math.sin((waves * Math.PI * k) / 16 + phase)),
  );

const px = { units: 'pixels' } as const;

describe('cobbAngles: hand-built spines', () => {
  it('C curve: main pair, then end vertebrae against it (step 4)', () => {
    // Tilts rise to +15° at vertebra 3 and fall to −25° at vertebra 13: main 40° between 3 and 13.
    const tilts = [5, 8, 12, 15, 12, 8, 4, 0, -4, -8, -12, -16, -20, -25, -24, -22, -20];
    const r = cobbAngles(spine(tilts, cShape), W, H);
    expect(r.curveType).toBe('C');
    expect(r.rule).toBe('C');
    expect(r.pt.angle).toBeCloseTo(40, 5);
    expect(r.pt.idxs).toEqual([3, 13]);
    expect(r.mt.angle).toBeCloseTo(10, 5);
    expect(r.mt.idxs).toEqual([0, 3]);
    expect(r.tl.angle).toBeCloseTo(5, 5);
    expect(r.tl.idxs).toEqual([13, 16]);
  });

  // Main 42° between vertebrae 5 (−18°) and 10 (+24°).
  const sTilts = [0, 8, 12, 4, -10, -18, -10, 0, 10, 20, 24, 15, 5, 0, -3, -5, -6];

  it('S curve in the upper half: a curve above u and one below l (step 5, first branch)', () => {
    const r = cobbAngles(spine(sTilts, sShape), W, H);
    expect(r.curveType).toBe('S');
    expect(r.rule).toBe('S-upper');
    expect(r.pt.angle).toBeCloseTo(42, 5);
    expect(r.pt.idxs).toEqual([5, 10]);
    expect(r.mt.angle).toBeCloseTo(30, 5);
    expect(r.mt.idxs).toEqual([2, 5]);
    expect(r.tl.angle).toBeCloseTo(30, 5);
    expect(r.tl.idxs).toEqual([10, 16]);
  });

  it('S curve lower in the image: both further curves above (step 5, second branch)', () => {
    // Lower endplates of 5 and 10 at y ≈ 790 and 1390: their sum 2180 is not under a height of 2000.
    const r = cobbAngles(spine(sTilts, sShape), W, 2000);
    expect(r.rule).toBe('S-lower');
    expect(r.pt.idxs).toEqual([5, 10]);
    expect(r.mt.angle).toBeCloseTo(30, 5);
    expect(r.mt.idxs).toEqual([2, 5]);
    expect(r.tl.angle).toBeCloseTo(12, 5);
    expect(r.tl.idxs).toEqual([0, 2]);
  });

  it('the worked example of docs/spine-tools.md', () => {
    const corners = [
      [110, 100, 210, 92, 110, 160, 210, 152],
      [100, 200, 200, 210, 100, 260, 200, 270],
      [130, 300, 230, 300, 130, 360, 230, 360],
      [140, 400, 240, 380, 140, 460, 240, 440],
      [120, 500, 220, 490, 120, 560, 220, 550],
    ].flatMap((v) => [0, 2, 4, 6].map((i) => [v[i]!, v[i + 1]!] as const));
    const lm = [...corners.map((p) => p[0]), ...corners.map((p) => p[1])];
    const r = cobbAngles(lm, 1000, 1200);
    expect([r.curveType, r.rule]).toEqual(['S', 'S-upper']);
    expect([r.pt, r.mt, r.tl].map((a) => [roundAngle(a.angle), a.idxs])).toEqual([
      [17.02, [1, 3]],
      [10.28, [0, 1]],
      [5.6, [3, 4]],
    ]);
    const lower = cobbAngles(lm, 1000, 700);
    expect([lower.rule, lower.mt.angle, lower.tl]).toEqual(['S-lower', r.mt.angle, { angle: 0, idxs: [0, 0] }]);
  });

  it('a tie goes to the first pair in index order', () => {
    // 20° differences for (2,7), (2,14), (7,9) and (9,14).
    const tilts = Array.from({ length: 17 }, () => 0);
    tilts[2] = 10;
    tilts[7] = -10;
    tilts[9] = 10;
    tilts[14] = -10;
    const r = cobbAngles(spine(tilts, cShape), W, H);
    expect(r.pt.angle).toBeCloseTo(20, 5);
    expect(r.pt.idxs).toEqual([2, 7]);
  });

  it('a NaN counts as S: a missing landmark, or a perfectly vertical straight spine (0/0)', () => {
    const tilts = Array.from({ length: 17 }, (_, k) => k);
    const lm = spine(tilts, cShape);
    lm[40] = Number.NaN;
    expect(cobbAngles(lm, W, H, px).curveType).toBe('S');
    const straight = cobbAngles(
      spine(
        Array.from({ length: 17 }, () => 0),
        () => 500,
      ),
      W,
      H,
    );
    expect(straight.curveType).toBe('S');
    expect(straight.pt).toEqual({ angle: 0, idxs: [0, 0] });
  });

  it('cosine rounded to 8 decimals: parallel directions give exactly 0, never NaN', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e4, max: 1e4, noNaN: true }),
        fc.double({ min: -1e4, max: 1e4, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        (x, y, s) => {
          fc.pre(Math.hypot(x, y) > 1e-6);
          expect(directionAngle([x, y], [x * s, y * s])).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('cosine not clipped: a vertebra with left and right swapped reads past 90°', () => {
    expect(directionAngle([1, 0], [-1, 0])).toBe(180);
    expect(directionAngle([1, 0], [-1, 1])).toBeCloseTo(135, 6);
    const lm = spine(
      Array.from({ length: 17 }, () => 0),
      cShape,
    );
    // Swap vertebra 8's left and right corners (x and y of corners 32↔33, 34↔35).
    for (const [a, b] of [
      [32, 33],
      [34, 35],
    ] as const) {
      for (const off of [0, 68]) {
        [lm[off + a], lm[off + b]] = [lm[off + b]!, lm[off + a]!];
      }
    }
    expect(cobbAngles(lm, W, H).pt).toEqual({ angle: 180, idxs: [0, 8] });
  });

  it('reads normalised landmarks (all in [0, 1]) scaled by width and height, else pixels', () => {
    const tilts = [5, 8, 12, 15, 12, 8, 4, 0, -4, -8, -12, -16, -20, -25, -24, -22, -20];
    const pixels = spine(tilts, cShape);
    const half = pixels.length / 2;
    const normalised = pixels.map((v, i) => v / (i < half ? W : H));
    expect(landmarkUnits(pixels)).toBe('pixels');
    expect(landmarkUnits(normalised)).toBe('normalised');
    const a = cobbAngles(pixels, W, H);
    const b = cobbAngles(normalised, W, H);
    expect(b.units).toBe('normalised');
    expectSameAngles(a, b);
    expect(b.rule).toBe(a.rule);
    expect(b.points[5]![0]).toBeCloseTo(a.points[5]![0], 9);
    expect(b.midpointLines).toHaveLength(17);
  });

  it('with the image size, values within [−1, 2] are normalised: a corner at 1.02, past the edge of the film', () => {
    const tilts = [5, 8, 12, 15, 12, 8, 4, 0, -4, -8, -12, -16, -20, -25, -24, -22, -20];
    const pixels = spine(tilts, cShape);
    const half = pixels.length / 2;
    const normalised = pixels.map((v, i) => v / (i < half ? W : H));
    // L5's lower-left corner 2% below the film, T1's upper-right 3% left of it.
    const edge = [...normalised];
    edge[half + 66] = 1.02;
    edge[1] = -0.03;
    expect(landmarkUnits(edge, W, H)).toBe('normalised');
    const r = cobbAngles(edge, W, H);
    expect(r.units).toBe('normalised');
    expectSameAngles(cobbAngles(edge, W, H, { units: 'normalised' }), r);
    expect(r.points[66]![1]).toBeCloseTo(1.02 * H, 9);
    // The bounds: 2 and −1 are normalised, beyond them pixels.
    expect(landmarkUnits([...normalised.slice(0, -1), 2], W, H)).toBe('normalised');
    expect(landmarkUnits([...normalised.slice(0, -1), 2.01], W, H)).toBe('pixels');
    expect(landmarkUnits([-1, ...normalised.slice(1)], W, H)).toBe('normalised');
    expect(landmarkUnits([-1.01, ...normalised.slice(1)], W, H)).toBe('pixels');
    // A film 50 px or less on a side could hold a spine that small in pixels; without a size only [0, 1] is normalised.
    expect(landmarkUnits(edge, 50, H)).toBe('pixels');
    expect(landmarkUnits(edge, W, 50)).toBe('pixels');
    expect(landmarkUnits(edge, Number.NaN, H)).toBe('pixels');
    expect(landmarkUnits(edge)).toBe('pixels');
    expect(landmarkUnits(normalised, 10, 10)).toBe('normalised');
    // Real pixel landmarks stay pixels with any size.
    expect(landmarkUnits(pixels, W, H)).toBe('pixels');
    expect(cobbAngles(pixels, W, H).units).toBe('pixels');
  });

  it('takes any count of two or more vertebrae (a vertebra added or removed), rejects a broken list', () => {
    const r = cobbAngles(
      landmarksOf([0, 10, 30].map((tilt, k) => ({ cx: 300 + 40 * k, cy: 200 + 120 * k, tilt }))),
      W,
      H,
    );
    expect(r.pt.angle).toBeCloseTo(30, 5);
    expect(r.pt.idxs).toEqual([0, 2]);
    expect(() => cobbAngles([1, 2, 3], W, H)).toThrow(RangeError);
    expect(() =>
      cobbAngles(
        Array.from({ length: 136 }, () => 0.5),
        0,
        H,
      ),
    ).toThrow(RangeError);
  });

  it('the C/S rule on its own: a bow is C, a wave is S', () => {
    const bow: Point2[] = Array.from({ length: 34 }, (_, i) => [
      100 + 5 * i + 50 * Math.sin((Math.PI * i) / 33),
      60 * i,
    ]);
    const wave: Point2[] = Array.from({ length: 34 }, (_, i) => [
      100 + 5 * i + 50 * Math.sin((2 * Math.PI * i) / 33),
      60 * i,
    ]);
    expect(curveTypeOf(bow)).toBe('C');
    expect(curveTypeOf(wave)).toBe('S');
  });
});

describe('cobbAngles: properties', () => {
  it('rotation invariance of the angles and of C/S', () => {
    fc.assert(
      fc.property(spineArb, fc.double({ min: -0.6, max: 0.6, noNaN: true }), (lm, phi) => {
        const [c, s] = [Math.cos(phi), Math.sin(phi)];
        const rotated = transform(lm, ([x, y]) => [
          W / 2 + c * (x - W / 2) - s * (y - H / 2),
          H / 2 + s * (x - W / 2) + c * (y - H / 2),
        ]);
        expectSameAngles(cobbAngles(lm, W, H, px), cobbAngles(rotated, W, H, px));
      }),
      { numRuns: 60 },
    );
  });

  it('scale invariance: landmarks and image scaled together give the same result', () => {
    fc.assert(
      fc.property(spineArb, fc.double({ min: 0.2, max: 5, noNaN: true }), (lm, k) => {
        const a = cobbAngles(lm, W, H, px);
        const b = cobbAngles(
          lm.map((v) => v * k),
          W * k,
          H * k,
          px,
        );
        expectSameAngles(a, b);
        expect(b.rule).toBe(a.rule);
      }),
      { numRuns: 60 },
    );
  });

  it('mirror invariance: the spine flipped left to right has the same angles, pairs, type and rule', () => {
    fc.assert(
      fc.property(spineArb, (lm) => {
        const a = cobbAngles(lm, W, H, px);
        const b = cobbAngles(
          transform(lm, ([x, y]) => [W - x, y]),
          W,
          H,
          px,
        );
        expectSameAngles(a, b);
        expect(b.rule).toBe(a.rule);
      }),
      { numRuns: 60 },
    );
  });

  it('translation invariance (the height moved with the spine keeps step 5 on the same branch)', () => {
    fc.assert(
      fc.property(spineArb, fc.integer({ min: -400, max: 400 }), fc.integer({ min: -400, max: 400 }), (lm, dx, dy) => {
        const a = cobbAngles(lm, W, H, px);
        const b = cobbAngles(
          transform(lm, ([x, y]) => [x + dx, y + dy]),
          W,
          H + 2 * dy,
          px,
        );
        expectSameAngles(a, b);
        expect(b.rule).toBe(a.rule);
      }),
      { numRuns: 60 },
    );
  });

  it('the main angle is the largest of the three, and every pair is ordered top to bottom', () => {
    fc.assert(
      fc.property(spineArb, (lm) => {
        const r = cobbAngles(lm, W, H, px);
        for (const a of [r.pt, r.mt, r.tl]) {
          expect(a.angle).toBeLessThanOrEqual(r.pt.angle);
          expect(a.idxs[0]).toBeLessThanOrEqual(a.idxs[1]);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('roundAngle (SPA-10: recognition angles to 2 decimals)', () => {
  it('rounds half away from zero on the decimal text, keeps NaN', () => {
    expect(roundAngle(12.345)).toBe(12.35);
    expect(roundAngle(1.005)).toBe(1.01);
    expect(roundAngle(39.99999)).toBe(40);
    // Binary noise on a decimal half is not allowed to round it down.
    expect(roundAngle(12.344999999999999)).toBe(12.35);
    expect(roundAngle(0)).toBe(0);
    expect(roundAngle(Number.NaN)).toBeNaN();
  });

  it('the stored angle keeps full precision', () => {
    const tilts = [0, 8, 12, 4, -10, -18, -10, 0, 10, 20, 24.123456, 15, 5, 0, -3, -5, -6];
    const r = cobbAngles(spine(tilts, sShape), W, H);
    expect(r.pt.angle).toBeCloseTo(42.123456, 5);
    expect(roundAngle(r.pt.angle)).toBe(42.12);
  });
});
