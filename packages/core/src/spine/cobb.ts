import { roundMeasurement } from './round.js';

/**
 * Cobb angles from vertebra corner landmarks, as the AASCE 2019 challenge (MICCAI, "Accurate Automated Spinal
 * Curvature Estimation") evaluates them: its MATLAB `angleCal` with `isS`, step by step as issue 18 writes it.
 * docs/spine-tools.md walks through the steps with a worked example.
 *
 * The challenge has 17 vertebrae (T1…L5, 68 corners). The semi-automatic tool lets a user add or remove a
 * vertebra, so any count of two or more is taken; with 17 the result is the challenge's.
 */

/** A point in pixels, x to the right and y downward. */
export type Point2 = [number, number];

export interface CobbAngle {
  /** Degrees, full precision (stored); `roundAngle` gives the 2-decimal display (SPA-10). */
  angle: number;
  /** Zero-based vertebra indexes (0 = T1), the upper one first. */
  idxs: [number, number];
}

export type CurveType = 'C' | 'S';

/** Which of the challenge's branches chose the second and third angles (steps 4 and 5). */
export type CobbRule = 'C' | 'S-upper' | 'S-lower';

export type LandmarkUnits = 'normalised' | 'pixels';

export interface CobbResult {
  /** The main (largest) angle of step 2. */
  pt: CobbAngle;
  /** The second angle of steps 4–5. */
  mt: CobbAngle;
  /** The third angle of steps 4–5. */
  tl: CobbAngle;
  curveType: CurveType;
  rule: CobbRule;
  /** Per vertebra, the line from its left-side midpoint to its right-side midpoint (pixels). */
  midpointLines: [Point2, Point2][];
  /** Upper then lower endplate midpoint of each vertebra, top to bottom (pixels). */
  endplateMidpoints: Point2[];
  /** The corners in pixels: per vertebra upper-left, upper-right, lower-left, lower-right. */
  points: Point2[];
  /** How the input was read. */
  units: LandmarkUnits;
}

export interface CobbOptions {
  /** Overrides the detection rule of `landmarkUnits`. */
  units?: LandmarkUnits;
}

/** With the image's size known, normalised values may lie this far past its edges (a corner off the film). */
export const NORMALISED_RANGE = { min: -1, max: 2 } as const;
/** An image this size or smaller on a side could hold a spine in pixels within `NORMALISED_RANGE`. */
export const MIN_FILM_SIDE = 50;

/**
 * How landmarks are read (finite values only; none at all is normalised):
 * - every value in [0, 1]: normalised;
 * - with `width` and `height` both over `MIN_FILM_SIDE` pixels, every value in [−1, 2]: normalised. A detector's
 *   corner at the film's edge lands slightly past it (1.02); read as pixels, such a set would be a spine inside a
 *   3 × 3 pixel square of a film at least 51 pixels a side, which no radiograph is;
 * - anything else: pixels. Without a usable size only [0, 1] is normalised, as such a set could not be scaled anyway.
 */
export function landmarkUnits(landmarks: readonly number[], width?: number, height?: number): LandmarkUnits {
  const finite = landmarks.filter((v) => Number.isFinite(v));
  if (finite.every((v) => v >= 0 && v <= 1)) return 'normalised';
  const sized = (width ?? 0) > MIN_FILM_SIDE && (height ?? 0) > MIN_FILM_SIDE;
  return sized && finite.every((v) => v >= NORMALISED_RANGE.min && v <= NORMALISED_RANGE.max) ? 'normalised' : 'pixels';
}

/** The 2-decimal display of a recognition angle (SPA-10); NaN stays NaN. */
export function roundAngle(angle: number): number {
  return roundMeasurement(angle, 2);
}

/** MATLAB's roundn(x, -8): half away from zero. */
function round8(x: number): number {
  return (Math.sign(x) * Math.round(Math.abs(x) * 1e8)) / 1e8;
}

/**
 * Step 2's angle between two directions, in degrees: arccos of the normalised dot product with the cosine rounded
 * to 8 decimals and not clipped. Rounding makes parallel directions exactly 0 (a cosine of 1.0000000000000002
 * would be NaN); not clipping keeps a reversed vertebra's angle above 90 (the challenge's Python port clips at 0).
 */
export function directionAngle(a: Point2, b: Point2): number {
  const cos = (a[0] * b[0] + a[1] * b[1]) / (Math.hypot(a[0], a[1]) * Math.hypot(b[0], b[1]));
  return (Math.acos(round8(cos)) * 180) / Math.PI;
}

/** MATLAB's max: the first index of the largest value, NaN ignored; all NaN gives NaN at index 0. */
function argmax(values: readonly number[]): { value: number; index: number } {
  let value = Number.NaN;
  let index = 0;
  values.forEach((v, i) => {
    if (!Number.isNaN(v) && (Number.isNaN(value) || v > value)) {
      value = v;
      index = i;
    }
  });
  return { value, index };
}

/**
 * Step 3: with the 2n endplate midpoints and the chord from the first to the last, C when every
 * (yᵢ − y_N)/(y₁ − y_N) − (xᵢ − x_N)/(x₁ − x_N) for i = 1…N−2 has the same sign (zeros aside), else S.
 * A NaN (a vertical or horizontal chord, a missing landmark) counts as S, as in the challenge.
 */
export function curveTypeOf(endplateMidpoints: readonly Point2[]): CurveType {
  const num = endplateMidpoints.length;
  const last = endplateMidpoints[num - 1]!;
  const first = endplateMidpoints[0]!;
  let positive = false;
  let negative = false;
  for (let i = 0; i < num - 2; i += 1) {
    const p = endplateMidpoints[i]!;
    const term = (p[1] - last[1]) / (first[1] - last[1]) - (p[0] - last[0]) / (first[0] - last[0]);
    if (Number.isNaN(term)) return 'S';
    if (term > 0) positive = true;
    if (term < 0) negative = true;
  }
  return positive && negative ? 'S' : 'C';
}

/**
 * The three Cobb angles of the AASCE 2019 evaluation.
 * @param landmarks n·4 x values then n·4 y values (n vertebrae, corners upper-left, upper-right, lower-left,
 *   lower-right, top to bottom); normalised (0–1, a little past the edges allowed) or pixels (see `landmarkUnits`).
 * @param width image width in pixels, scales normalised x values.
 * @param height image height in pixels, scales normalised y values and decides step 5's branch.
 */
export function cobbAngles(
  landmarks: readonly number[],
  width: number,
  height: number,
  options: CobbOptions = {},
): CobbResult {
  if (landmarks.length < 16 || landmarks.length % 8 !== 0) {
    throw new RangeError(
      `landmarks: expected 8 values per vertebra for two or more vertebrae, got ${landmarks.length}`,
    );
  }
  const units = options.units ?? landmarkUnits(landmarks, width, height);
  if (units === 'normalised' && !(width > 0 && height > 0)) {
    throw new RangeError('width and height must be positive to scale normalised landmarks');
  }
  const half = landmarks.length / 2;
  const sx = units === 'normalised' ? width : 1;
  const sy = units === 'normalised' ? height : 1;
  const points: Point2[] = Array.from({ length: half }, (_, i) => [landmarks[i]! * sx, landmarks[half + i]! * sy]);
  const n = half / 4;
  const mid = (a: Point2, b: Point2): Point2 => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];

  // Step 1: endplate midpoints (upper: corners 0 and 1, lower: 2 and 3) and side midpoints (left: 0 and 2,
  // right: 1 and 3); a vertebra's direction runs from its left-side midpoint to its right-side midpoint.
  const endplateMidpoints: Point2[] = [];
  const midpointLines: [Point2, Point2][] = [];
  const directions: Point2[] = [];
  for (let v = 0; v < n; v += 1) {
    const [ul, ur, ll, lr] = [points[4 * v]!, points[4 * v + 1]!, points[4 * v + 2]!, points[4 * v + 3]!];
    endplateMidpoints.push(mid(ul, ur), mid(ll, lr));
    const left = mid(ul, ll);
    const right = mid(ur, lr);
    midpointLines.push([left, right]);
    directions.push([right[0] - left[0], right[1] - left[1]]);
  }

  // Step 2: every pair's angle; MATLAB's max over columns then over their maxima picks the first column holding
  // the largest angle (u) and the first row of it (l), so u < l and ties go to the first pair in index order.
  const angles = directions.map((a) => directions.map((b) => directionAngle(a, b)));
  const columnMax = angles.map((column) => argmax(column));
  const main = argmax(columnMax.map((c) => c.value));
  const u = main.index;
  const l = columnMax[u]!.index;
  const pt: CobbAngle = { angle: main.value, idxs: [u, l] };

  const curveType = curveTypeOf(endplateMidpoints);
  const row = angles[u]!;
  if (curveType === 'C') {
    // Step 4: the end vertebrae against the main pair.
    return {
      pt,
      mt: { angle: angles[0]![u]!, idxs: [0, u] },
      tl: { angle: angles[n - 1]![l]!, idxs: [l, n - 1] },
      curveType,
      rule: 'C',
      midpointLines,
      endplateMidpoints,
      points,
      units,
    };
  }
  // Step 5: the main curve in the upper half of the image (the lower endplates of u and l, summed, above the
  // height) leaves a curve above u and one below l; otherwise the two further curves are both above.
  const upper = argmax(row.slice(0, u + 1));
  const k = upper.index;
  const mt: CobbAngle = { angle: upper.value, idxs: [k, u] };
  if (endplateMidpoints[2 * u + 1]![1] + endplateMidpoints[2 * l + 1]![1] < height) {
    const lower = argmax(angles[l]!.slice(l));
    return {
      pt,
      mt,
      tl: { angle: lower.value, idxs: [l, l + lower.index] },
      curveType,
      rule: 'S-upper',
      midpointLines,
      endplateMidpoints,
      points,
      units,
    };
  }
  const above = argmax(angles[k]!.slice(0, k + 1));
  return {
    pt,
    mt,
    tl: { angle: above.value, idxs: [above.index, k] },
    curveType,
    rule: 'S-lower',
    midpointLines,
    endplateMidpoints,
    points,
    units,
  };
}
