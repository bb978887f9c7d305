import type { CobbResult, Point2 } from './cobb.js';

/**
 * Which vertebrae each Cobb angle measured (docs/spine-tools.md). The challenge names its three angles PT, MT and
 * TL by its own rule (step 2's largest first), not by where they sit: its "TL" is often the highest curve. A
 * surgeon reads a curve by its end vertebrae and apex (T5–T11, apex T8), so these are given with every angle.
 */

/** The vertebrae of the challenge's spine, top to bottom (SPA-05), in the order of the landmarks. */
export const SPINE_VERTEBRA_NAMES = [
  'T1',
  'T2',
  'T3',
  'T4',
  'T5',
  'T6',
  'T7',
  'T8',
  'T9',
  'T10',
  'T11',
  'T12',
  'L1',
  'L2',
  'L3',
  'L4',
  'L5',
] as const;

export type CobbCurveKey = 'pt' | 'mt' | 'tl';
export const COBB_CURVE_KEYS = ['pt', 'mt', 'tl'] as const satisfies readonly CobbCurveKey[];

export interface CurveLevels {
  /** The end vertebrae: the pair of the angle (`idxs`), zero-based, the upper first. */
  ends: [number, number];
  /**
   * The apex: vertebra k, or k + 0.5 for the disc between vertebrae k and k + 1; null when no vertebra deviates
   * from the line joining the end vertebrae (a straight column) or the landmarks are incomplete.
   */
  apex: number | null;
}

/** The centre of vertebra k: the mean of its four corners (pixels, as `CobbResult.points`). */
function centre(points: readonly Point2[], k: number): Point2 {
  const corners = points.slice(4 * k, 4 * k + 4);
  return [corners.reduce((s, p) => s + p[0], 0) / 4, corners.reduce((s, p) => s + p[1], 0) / 4];
}

/**
 * The apex of the curve between end vertebrae `upper` and `lower`: the vertebra whose centre lies farthest from
 * the line joining the end vertebrae's centres (SRS: the most deviated vertebra or disc of the curve). The disc
 * beside it is the apex instead when the peak of the parabola through that vertebra's deviation and its two
 * neighbours' lies nearer the disc than the vertebra's centre (more than a quarter of a level away): two vertebrae
 * equally far give their disc. Two adjacent end vertebrae have the disc between them as apex.
 *
 * Only +, − and × and one division are used (the deviation is left multiplied by the chord's length, the same for
 * every vertebra), so the browser and the server agree to the bit and the saved apex can be checked.
 */
export function curveApex(points: readonly Point2[], upper: number, lower: number): number | null {
  if (!(lower > upper)) return null;
  if (lower === upper + 1) return upper + 0.5;
  const a = centre(points, upper);
  const b = centre(points, lower);
  const [ex, ey] = [b[0] - a[0], b[1] - a[1]];
  const deviation = (k: number) => {
    const c = centre(points, k);
    return Math.abs(ex * (c[1] - a[1]) - ey * (c[0] - a[0]));
  };
  let best = -1;
  let far = 0;
  for (let k = upper + 1; k < lower; k += 1) {
    const d = deviation(k);
    if (Number.isNaN(d)) return null;
    if (d > far) {
      far = d;
      best = k;
    }
  }
  // Within a thousandth of the chord (the bow of a curve of about half a degree) the column is straight: its
  // farthest vertebra would be the landmarks' rounding, not an apex.
  if (best < 0 || far <= 1e-3 * (ex * ex + ey * ey)) return null;
  const [p, q, r] = [deviation(best - 1), far, deviation(best + 1)];
  const bend = p - 2 * q + r;
  const offset = bend < 0 ? (p - r) / (2 * bend) : 0;
  if (offset > 0.25) return best + 0.5;
  if (offset < -0.25) return best - 0.5;
  return best;
}

/** An angle's levels, or null when it measured no curve (no angle, 0°, or one vertebra against itself). */
export function curveLevels(result: CobbResult, key: CobbCurveKey): CurveLevels | null {
  const { angle, idxs } = result[key];
  const [upper, lower] = idxs;
  if (!Number.isFinite(angle) || angle === 0 || !(lower > upper)) return null;
  return { ends: [upper, lower], apex: curveApex(result.points, upper, lower) };
}

export function cobbLevels(result: CobbResult): Record<CobbCurveKey, CurveLevels | null> {
  return { pt: curveLevels(result, 'pt'), mt: curveLevels(result, 'mt'), tl: curveLevels(result, 'tl') };
}

/**
 * Vertebra k's name among `count`: T1…L5 for the challenge's 17 and the first 17 of more (the tool adds a
 * vertebra below the last); vertebrae past L5, and every vertebra of a spine with fewer than 17 (one was removed,
 * which shifts the rest), are numbered from the top: 第k节.
 */
export function vertebraName(index: number, count: number): string {
  const named = count >= SPINE_VERTEBRA_NAMES.length ? SPINE_VERTEBRA_NAMES[index] : undefined;
  return named ?? `第${index + 1}节`;
}

/** The apex's name: a vertebra (T8) or a disc by its two vertebrae (T8/T9). */
export function apexName(apex: number, count: number): string {
  const k = Math.floor(apex);
  return apex === k ? vertebraName(k, count) : `${vertebraName(k, count)}/${vertebraName(k + 1, count)}`;
}

/** A curve's levels as shown beside its angle: T5–T11，顶椎 T8 (our text); a disc apex 顶椎间盘 T8/T9. */
export function curveLevelsText(levels: CurveLevels | null, count: number): string {
  if (levels === null) return '';
  const ends = `${vertebraName(levels.ends[0], count)}–${vertebraName(levels.ends[1], count)}`;
  if (levels.apex === null) return ends;
  const kind = Number.isInteger(levels.apex) ? '顶椎' : '顶椎间盘';
  return `${ends}，${kind} ${apexName(levels.apex, count)}`;
}
