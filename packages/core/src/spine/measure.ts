import { roundMeasurement } from './round.js';

/**
 * The manual measurement tool's maths (forms §3 "Spine manual measurement data", §4 "Manual measurement
 * drawing", §5, §8, §9): lines on a 500 × 800 canvas, angles between two lines, lengths scaled by a reference
 * line. The canvas draws; these functions decide.
 */

/** Texts fixed by the spec (forms §5, §8), and one of ours (see docs/decisions.md, SPM-09). */
export const SPINE_MSG = {
  lineLimit: '线段条数已达上限',
  angleNotComputable: '无法计算角度',
  imageType: '请上传JPG/PNG/BMP 格式!',
  referenceFirst: '请先绘制参考线',
} as const;

/** forms §9. */
export const SPINE_MANUAL_CANVAS = { width: 500, height: 800 } as const;
export const SPINE_AUTO_CANVAS = { width: 1084, height: 2437 } as const;

export const SPINE_MEASURES = ['SVA', 'TK', 'LL', 'PI', 'PT', 'SS', 'ISH', 'LS', 'LCA', 'CL', 'CVH'] as const;
export type SpineMeasure = (typeof SPINE_MEASURES)[number];

export const SPINE_UNITS = ['none', 'mm', 'cm', 'm', 'in'] as const;
export type SpineUnit = (typeof SPINE_UNITS)[number];

export const LINE_CODES = ['a', 'b', 'c', 'd'] as const;
export type LineCode = (typeof LINE_CODES)[number];

export interface SpinePoint {
  x: number;
  y: number;
}

export interface SpineLine {
  start: SpinePoint;
  end: SpinePoint;
}

export type MeasureKind = 'angle' | 'distance';

export interface SpineMeasureDefinition {
  name: SpineMeasure;
  /** The tool's Chinese name (ours: the spec gives only the abbreviations; SPM-25 in docs/decisions.md). */
  title: string;
  kind: MeasureKind;
  /** Most lines the tool takes; a further one is refused with 线段条数已达上限. */
  maxLines: number;
  /** Codes the lines carry in drawing order (ISH and CVH only, forms §3). */
  lineCodes: readonly LineCode[] | null;
  /** What `diagnose` reads: degrees, centimetres (SVA), or the slip ratio (ISH, CVH); null without bands. */
  valueUnit: 'degree' | 'cm' | 'ratio' | null;
}

const angle = (name: SpineMeasure, title: string, banded = true): SpineMeasureDefinition => ({
  name,
  title,
  kind: 'angle',
  maxLines: 2,
  lineCodes: null,
  valueUnit: banded ? 'degree' : null,
});

const slip = (name: SpineMeasure, title: string): SpineMeasureDefinition => ({
  name,
  title,
  kind: 'distance',
  maxLines: LINE_CODES.length,
  lineCodes: LINE_CODES,
  valueUnit: 'ratio',
});

export const SPINE_MEASURE_DEFINITIONS: Readonly<Record<SpineMeasure, SpineMeasureDefinition>> = {
  SVA: { name: 'SVA', title: '矢状面垂直轴', kind: 'distance', maxLines: 1, lineCodes: null, valueUnit: 'cm' },
  TK: angle('TK', '胸椎后凸角'),
  LL: angle('LL', '腰椎前凸角'),
  PI: angle('PI', '骨盆入射角', false),
  PT: angle('PT', '骨盆倾斜角', false),
  SS: angle('SS', '骶骨倾斜角'),
  ISH: slip('ISH', '峡部裂性腰椎滑脱'),
  LS: angle('LS', '腰骶滑脱角'),
  LCA: angle('LCA', '脊柱侧凸Cobb角'),
  CL: angle('CL', '颈椎前凸角'),
  CVH: slip('CVH', '颈椎滑脱'),
};

/** forms §5: JPEG, PNG or BMP only. Null when accepted, else the message to show. */
export function checkMeasurementImage(file: { type?: string | null; name?: string | null }): string | null {
  const type = (file.type ?? '').toLowerCase();
  if (type !== '') {
    return ['image/jpeg', 'image/jpg', 'image/pjpeg', 'image/png', 'image/bmp', 'image/x-ms-bmp'].includes(type)
      ? null
      : SPINE_MSG.imageType;
  }
  // Some browsers leave the type empty (BMP on older Windows); the extension decides then.
  return /\.(jpe?g|png|bmp)$/i.test(file.name ?? '') ? null : SPINE_MSG.imageType;
}

/** Pixel length of a line. */
export function pixelLength(line: SpineLine): number {
  return Math.hypot(line.end.x - line.start.x, line.end.y - line.start.y);
}

/**
 * forms §5 (SPM-11): the scale is the reference line's real length over its pixel length when that real length
 * is a positive number (and the line has a length); otherwise 1.
 */
export function referenceScale(referenceLine: SpineLine | null | undefined, referenceLength: unknown): number {
  const real = typeof referenceLength === 'string' ? Number(referenceLength.trim() || Number.NaN) : referenceLength;
  if (typeof real !== 'number' || !Number.isFinite(real) || real <= 0 || !referenceLine) return 1;
  const px = pixelLength(referenceLine);
  return Number.isFinite(px) && px > 0 ? real / px : 1;
}

/** forms §9 (SPM-14): lengths to 2 decimals. */
export function roundLength(value: number): number {
  return roundMeasurement(value, 2);
}

/** forms §9 (SPM-14): angles to integers (half away from zero). */
export function roundMeasureAngle(value: number): number {
  return roundMeasurement(value, 0);
}

/** A line's length in the measure's unit: pixel length times the scale, to 2 decimals (`linelength`). */
export function lineLength(line: SpineLine, scale: number): number {
  return roundLength(pixelLength(line) * scale);
}

const CM_PER_UNIT: Readonly<Record<Exclude<SpineUnit, 'none'>, number>> = { mm: 0.1, cm: 1, m: 100, in: 2.54 };

/** A length in centimetres (the SVA bands' unit); null for `none`, whose lengths are pixels times a bare scale. */
export function toCentimetres(value: number, unit: SpineUnit): number | null {
  return unit === 'none' ? null : value * CM_PER_UNIT[unit];
}

export type AddLineCheck =
  { ok: true; lineCode: LineCode | null } | { ok: false; reason: 'limit' | 'reference_required'; message: string };

/**
 * Whether the tool takes one more line (SPM-07, SPM-09, SPM-03): angle tools at most 2; distance tools only after
 * a reference line; SVA one line; ISH and CVH four, coded a–d in order (a deleted code is given again first).
 */
export function canAddLine(
  measure: SpineMeasure,
  state: { lines: readonly { lineCode?: LineCode | null }[]; referenceLine?: SpineLine | null },
): AddLineCheck {
  const def = SPINE_MEASURE_DEFINITIONS[measure];
  if (def.kind === 'distance' && !state.referenceLine) {
    return { ok: false, reason: 'reference_required', message: SPINE_MSG.referenceFirst };
  }
  if (state.lines.length >= def.maxLines) return { ok: false, reason: 'limit', message: SPINE_MSG.lineLimit };
  if (!def.lineCodes) return { ok: true, lineCode: null };
  const used = new Set(state.lines.map((l) => l.lineCode));
  return { ok: true, lineCode: def.lineCodes.find((c) => !used.has(c)) ?? null };
}

/** SPM-10: the reference-line button is enabled only while the tool has no reference line. */
export function canDrawReference(state: { referenceLine?: SpineLine | null }): boolean {
  return !state.referenceLine;
}

/**
 * forms §9 ISH and CVH: the mean of lines a, b and c over line d. Pixel lengths: the ratio needs no scale.
 * Null until all four are drawn, or when d has no length.
 */
export function slipRatio(lines: readonly (SpineLine & { lineCode?: LineCode | null })[]): number | null {
  const byCode = new Map(lines.filter((l) => l.lineCode).map((l) => [l.lineCode!, pixelLength(l)]));
  const [a, b, c, d] = LINE_CODES.map((code) => byCode.get(code));
  if (a === undefined || b === undefined || c === undefined || d === undefined || !(d > 0)) return null;
  return (a + b + c) / 3 / d;
}
