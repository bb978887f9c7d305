import { z } from 'zod';
import type { CrfNode } from '../crf/crf-definition.schema.js';
import { cobbAngles, roundAngle } from './cobb.js';
import { COBB_CURVE_KEYS, SPINE_VERTEBRA_NAMES, cobbLevels } from './cobb-levels.js';
import type { CobbCurveKey, CurveLevels } from './cobb-levels.js';
import { cobbAngleValueSchema, spineAutoResultSchema, toSpineAutoResult } from './schema.js';

/**
 * The `spineCobb` item (the automatic Cobb angle tool, docs/spine-tools.md): its value is the recognition result
 * of forms §3 as JSON text, plus the image's size in pixels (our extension: normalised landmarks need it to be
 * read back as pixels, and the S rule compares with the image height). The angles stored are `cobbAngles` of the
 * landmarks at full precision; the items the options name receive them rounded to 2 decimals (SPA-10).
 */
/**
 * An angle with our `apex` (cobb-levels.ts): vertebra k, or k + 0.5 for the disc between k and k + 1; null when the
 * angle measured no curve. Optional: values saved before it was added have none and stay valid.
 */
const cobbAngleWithApexSchema = cobbAngleValueSchema.extend({ apex: z.number().nonnegative().nullable().optional() });

export const spineCobbValueSchema = spineAutoResultSchema.extend({
  angles: z.object({ pt: cobbAngleWithApexSchema, mt: cobbAngleWithApexSchema, tl: cobbAngleWithApexSchema }),
  imgWidth: z.number().finite().positive(),
  imgHeight: z.number().finite().positive(),
});
export type SpineCobbValue = z.infer<typeof spineCobbValueSchema>;

/** Refused on save: not the recognition result (ours). */
export const SPINE_COBB_INVALID = '脊柱自动测量结果格式有误';
/** Refused on save: the stored angles are not those of the stored landmarks (ours). */
export const SPINE_COBB_MISMATCH = '脊柱自动测量角度与关键点不一致';

export const SPINE_COBB_TARGETS = { pt: 'ptItem', mt: 'mtItem', tl: 'tlItem', curve_type: 'curveTypeItem' } as const;
export type SpineCobbKey = keyof typeof SPINE_COBB_TARGETS;

function parseJson(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** The stored value (JSON text or the object) read as the result, or null. */
export function readSpineCobb(raw: unknown): SpineCobbValue | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const parsed = spineCobbValueSchema.safeParse(parseJson(raw));
  return parsed.success ? parsed.data : null;
}

/** The canonical stored shape: JSON text; an empty text is no value. */
export function writeSpineCobb(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : raw;
  return typeof raw === 'object' && raw !== null ? JSON.stringify(raw) : String(raw);
}

const ANGLE_TOLERANCE = 1e-6;

/**
 * Why a `spineCobb` value is refused on save: not the result, or angles and curve type that `cobbAngles` does not
 * give for its landmarks (the server recomputes them; a client cannot store angles of its own). Null when valid.
 */
export function spineCobbError(raw: unknown): string | null {
  const value = readSpineCobb(raw);
  if (value === null) return SPINE_COBB_INVALID;
  const cobb = cobbAngles(value.landmarks, value.imgWidth, value.imgHeight, { units: 'normalised' });
  if (cobb.curveType !== value.curve_type) return SPINE_COBB_MISMATCH;
  const levels = cobbLevels(cobb);
  for (const key of COBB_CURVE_KEYS) {
    const stored = value.angles[key];
    const computed = cobb[key];
    const same = Number.isFinite(computed.angle)
      ? stored.angle !== null && Math.abs(stored.angle - computed.angle) <= ANGLE_TOLERANCE
      : stored.angle === null;
    if (!same || stored.idxs[0] !== computed.idxs[0] || stored.idxs[1] !== computed.idxs[1]) {
      return SPINE_COBB_MISMATCH;
    }
    // The apex is arithmetic on the landmarks (no library function), so client and server agree exactly.
    if (stored.apex !== undefined && stored.apex !== (levels[key]?.apex ?? null)) return SPINE_COBB_MISMATCH;
  }
  return null;
}

/**
 * What a target item receives: an angle rounded to 2 decimals, or the curve type. Empty text when there is no
 * result, so that clearing the X-ray clears the items too (a calculation answering null would keep them).
 */
export function spineCobbTargetValue(raw: unknown, key: string): number | string | null {
  const value = readSpineCobb(raw);
  if (value === null) return '';
  if (key === 'curve_type') return value.curve_type;
  if (key !== 'pt' && key !== 'mt' && key !== 'tl') return null;
  const angle = value.angles[key].angle;
  return angle === null ? null : roundAngle(angle);
}

/**
 * The calculations the definition's `spineCobb` items imply: target item name → formula, e.g.
 * `cobb_pt` → `spineCobb(spine_xray, "pt")`. The engine runs them like crfRules, so the targets are calculated,
 * read-only, saved, searched, exported and range-checked as ordinary items.
 */
export function spineCobbRules(nodes: readonly CrfNode[]): Array<{ target: string; formula: string; path: string }> {
  const out: Array<{ target: string; formula: string; path: string }> = [];
  const visit = (node: CrfNode, path: string) => {
    if (node.type === 'spineCobb' && node.name) {
      for (const [key, option] of Object.entries(SPINE_COBB_TARGETS)) {
        const target = node.option[option];
        if (typeof target === 'string' && target.trim() !== '') {
          out.push({
            target: target.trim(),
            formula: `spineCobb(${node.name}, "${key}")`,
            path: `${path}.option.${option}`,
          });
        }
      }
    }
    node.children.forEach((child, i) => visit(child, `${path}${path ? '.' : ''}children[${i}]`));
  };
  nodes.forEach((node, i) => visit(node, `children[${i}]`));
  return out;
}

/**
 * The semi-automatic mode's starting point when no detector is installed: 17 level vertebrae down the middle of
 * the image (normalised landmarks, x values then y values), widening from T1 to L5, for the user to move onto
 * the X-ray. Every angle of it is 0.
 */
export function defaultSpineTemplate(count: number = SPINE_VERTEBRA_NAMES.length): number[] {
  const xs: number[] = [];
  const ys: number[] = [];
  const top = 0.12;
  const step = 0.76 / count;
  for (let k = 0; k < count; k++) {
    const half = (0.05 + (0.03 * k) / Math.max(1, count - 1)) / 2;
    const y0 = top + k * step;
    const y1 = y0 + step * 0.75;
    xs.push(0.5 - half, 0.5 + half, 0.5 - half, 0.5 + half);
    ys.push(y0, y0, y1, y1);
  }
  return [...xs, ...ys].map((v) => Math.round(v * 1e6) / 1e6);
}

/** The stored value for landmarks on an image: the angles always from `cobbAngles`, whatever placed the points. */
export function spineCobbValue(input: {
  landmarks: readonly number[];
  imgWidth: number;
  imgHeight: number;
  imgURL: string;
  detections?: SpineCobbValue['detections'];
}): SpineCobbValue {
  const cobb = cobbAngles(input.landmarks, input.imgWidth, input.imgHeight, { units: 'normalised' });
  const result = toSpineAutoResult(cobb, input);
  const levels = cobbLevels(cobb);
  const withApex = (key: CobbCurveKey) => ({ ...result.angles[key], apex: levels[key]?.apex ?? null });
  return {
    ...result,
    angles: { pt: withApex('pt'), mt: withApex('mt'), tl: withApex('tl') },
    imgWidth: input.imgWidth,
    imgHeight: input.imgHeight,
  };
}

/**
 * The end vertebrae and apex of each angle of a stored value, from its landmarks (values saved before the apex
 * was stored have them too); null for an angle that measured no curve.
 */
export function spineCobbLevels(value: SpineCobbValue): Record<CobbCurveKey, CurveLevels | null> {
  return cobbLevels(cobbAngles(value.landmarks, value.imgWidth, value.imgHeight, { units: 'normalised' }));
}
