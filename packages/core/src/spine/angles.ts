import { SPINE_MSG, roundMeasureAngle, type SpineLine, type SpineMeasure } from './measure.js';

/**
 * The manual measures' angles and SVA as the literature defines them (docs/spine-tools.md, "Sign conventions"):
 * signed, up to ±180°, read in the patient's frame (anterior, superior) rather than as the acute angle between two
 * lines. Which way the patient faces on the film is the document's `facing`; which line plays which part is read
 * from the lines' positions and tilts, so neither the order of the two lines nor the order of a line's two clicks
 * changes a result.
 */

/** Which way the patient faces on the film: anterior is to the viewer's right (the default) or left. */
export const SPINE_FACINGS = ['right', 'left'] as const;
export type SpineFacing = (typeof SPINE_FACINGS)[number];

/** A line's direction in the patient's frame: `a` anterior, `u` superior (canvas y runs down). */
interface Frame {
  a: number;
  u: number;
}

const DEG = 180 / Math.PI;

const frameOf = (line: SpineLine, facing: SpineFacing): Frame => ({
  a: (facing === 'left' ? -1 : 1) * (line.end.x - line.start.x),
  u: -(line.end.y - line.start.y),
});

/** Tilt from the horizontal, (−90°, 90°]: positive when the line's anterior end is the higher one. */
function slope({ a, u }: Frame): number {
  return a < 0 || (a === 0 && u < 0) ? Math.atan2(-u, -a) * DEG : Math.atan2(u, a) * DEG;
}

/** Lean from the vertical, (−90°, 90°]: positive when the line's upper end lies posterior of its lower end. */
function lean({ a, u }: Frame): number {
  return u < 0 || (u === 0 && a > 0) ? Math.atan2(a, -u) * DEG : Math.atan2(-a, u) * DEG;
}

const meanY = (l: SpineLine) => (l.start.y + l.end.y) / 2;
const meanX = (l: SpineLine) => (l.start.x + l.end.x) / 2;

export type LineAngleResult =
  | {
      ok: true;
      /** Degrees, signed by the measure's convention, full precision. */ angle: number;
      /** Rounded to an integer (half away from zero). */ degrees: number;
    }
  | { ok: false; reason: 'incomplete' | 'degenerate'; message: string | null };

const hasLength = (l: SpineLine) => {
  const n = Math.hypot(l.end.x - l.start.x, l.end.y - l.start.y);
  return Number.isFinite(n) && n > 0;
};

/**
 * A measure's angle from its two lines (SPM-08, SPM-14), by the conventions of docs/spine-tools.md:
 * - TK: kyphosis positive; LL and CL: lordosis positive (the Cobb angle between the upper and the lower endplate,
 *   the upper one being the line whose middle is higher on the film);
 * - LS (Boxall slip angle): L5's inferior endplate against the perpendicular to S1's posterior wall (the more
 *   posterior line), lumbosacral kyphosis positive;
 * - SS: the S1 endplate against the horizontal line (the flatter line), positive when the endplate's anterior
 *   end is lower; PT: the hip axis–S1 line against the vertical line (the more upright one), positive when the
 *   femoral heads lie anterior of the endplate's midpoint; PI: the angle between the endplate's perpendicular and
 *   the hip axis–S1 line, 0–180°;
 * - LCA: the coronal Cobb angle, 0–180°, unsigned (the film's facing plays no part).
 * Two lines are needed; a line without length gives 无法计算角度. Parallel lines give 0°.
 */
export function measureAngle(
  measure: SpineMeasure,
  lines: readonly SpineLine[],
  facing: SpineFacing = 'right',
): LineAngleResult {
  if (lines.length < 2) return { ok: false, reason: 'incomplete', message: null };
  const [first, second] = [lines[0]!, lines[1]!];
  if (!hasLength(first) || !hasLength(second)) {
    return { ok: false, reason: 'degenerate', message: SPINE_MSG.angleNotComputable };
  }
  const angle = signedAngle(measure, first, second, facing);
  if (angle === null) return { ok: false, reason: 'incomplete', message: null };
  // −0 reads as 0.
  return { ok: true, angle: angle + 0, degrees: roundMeasureAngle(angle) + 0 };
}

function signedAngle(measure: SpineMeasure, first: SpineLine, second: SpineLine, facing: SpineFacing): number | null {
  const f1 = frameOf(first, facing);
  const f2 = frameOf(second, facing);
  // Upper and lower endplate by height on the film; on a tie, as drawn.
  const [upper, lower] = meanY(second) < meanY(first) ? [f2, f1] : [f1, f2];
  switch (measure) {
    case 'TK':
      return slope(lower) - slope(upper);
    case 'LL':
    case 'CL':
      return slope(upper) - slope(lower);
    case 'LS': {
      // S1's posterior wall is the more posterior line; the perpendicular to it, turned to face anterior, has the
      // wall's lean as its slope.
      const depth = (l: SpineLine) => (facing === 'left' ? -1 : 1) * meanX(l);
      const [wall, plate] = depth(second) < depth(first) ? [f2, f1] : [f1, f2];
      return lean(wall) - slope(plate);
    }
    case 'SS': {
      const [plate, horizontal] = Math.abs(slope(f1)) < Math.abs(slope(f2)) ? [f2, f1] : [f1, f2];
      return slope(horizontal) - slope(plate);
    }
    case 'PT': {
      const [axis, vertical] = Math.abs(lean(f1)) < Math.abs(lean(f2)) ? [f2, f1] : [f1, f2];
      return lean(axis) - lean(vertical);
    }
    case 'PI': {
      // Both lines turned to point caudally (from the endplate's midpoint into the pelvis): their angle, 0–180°.
      const down = ({ a, u }: Frame): Frame => (u > 0 || (u === 0 && a < 0) ? { a: -a, u: -u } : { a, u });
      const [p, q] = [down(f1), down(f2)];
      return Math.atan2(Math.abs(p.a * q.u - p.u * q.a), p.a * q.a + p.u * q.u) * DEG;
    }
    case 'LCA':
      // Coronal: tilts read left to right on the film, whichever way the patient faces.
      return Math.abs(slope(frameOf(first, 'right')) - slope(frameOf(second, 'right')));
    case 'SVA':
    case 'ISH':
    case 'CVH':
      return null;
  }
}

/**
 * SVA (forms §9; SDSG): the horizontal distance from the posterosuperior corner of S1 to the C7 plumb line, in
 * canvas pixels, positive when the plumb line falls anterior of the corner. The line is drawn between the C7
 * centroid and that corner, either way round: its higher end is C7 (on a tie, its start).
 */
export function svaOffset(line: SpineLine, facing: SpineFacing = 'right'): number {
  const [c7, s1] = line.end.y < line.start.y ? [line.end, line.start] : [line.start, line.end];
  return (facing === 'left' ? -1 : 1) * (c7.x - s1.x) + 0;
}

/** PI−LL (Schwab 2012), in degrees as shown (integers); null unless both are measured. */
export function pelvicMismatch(pi: number | null | undefined, ll: number | null | undefined): number | null {
  return typeof pi === 'number' && typeof ll === 'number' && Number.isFinite(pi) && Number.isFinite(ll)
    ? pi - ll
    : null;
}
