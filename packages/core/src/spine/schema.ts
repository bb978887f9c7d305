import { z } from 'zod';
import type { CobbResult } from './cobb.js';
import { SPINE_FACINGS } from './angles.js';
import { LINE_CODES, SPINE_MEASURE_DEFINITIONS, SPINE_MEASURES, SPINE_UNITS } from './measure.js';
import type { SpineMeasure } from './measure.js';

/**
 * Stored values of the spine tools (forms §3): the automatic recognition result (SPA-04, SPA-05) and the manual
 * measurement data (SPM-02, SPM-03). Field names are the spec's, snake_case and camelCase as it writes them.
 */

const pixel = z.number().finite();
const pointTuple = z.tuple([pixel, pixel]);

export const cobbAngleValueSchema = z.object({
  /** Degrees, full precision; null when the landmarks gave none (a NaN does not survive JSON). */
  angle: z.number().finite().nullable(),
  idxs: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
});

export const spineDetectionSchema = z.object({
  xmin: pixel,
  ymin: pixel,
  xmax: pixel,
  ymax: pixel,
  confidence: z.number().min(0).max(1),
});

export const spineAutoResultSchema = z.object({
  curve_type: z.enum(['C', 'S']),
  angles: z.object({ pt: cobbAngleValueSchema, mt: cobbAngleValueSchema, tl: cobbAngleValueSchema }),
  /** Per vertebra, [left-side midpoint, right-side midpoint] in pixels. */
  midpoint_lines: z.array(z.tuple([pointTuple, pointTuple])),
  detections: z.array(spineDetectionSchema),
  /** 4 corners per vertebra: all x values, then all y values; normalised 0–1 (SPA-05) or pixels. */
  landmarks: z
    .array(z.number().finite())
    .refine((l) => l.length >= 16 && l.length % 8 === 0, { message: '关键点数量应为每个椎体 8 个数值' }),
  imgURL: z.string(),
});
export type SpineAutoResult = z.infer<typeof spineAutoResultSchema>;

/** The stored automatic result from `cobbAngles` and what the detector and upload gave. */
export function toSpineAutoResult(
  cobb: CobbResult,
  input: { landmarks: readonly number[]; detections?: SpineAutoResult['detections']; imgURL: string },
): SpineAutoResult {
  const value = (a: CobbResult['pt']) => ({
    angle: Number.isFinite(a.angle) ? a.angle : null,
    idxs: [a.idxs[0], a.idxs[1]] as [number, number],
  });
  return {
    curve_type: cobb.curveType,
    angles: { pt: value(cobb.pt), mt: value(cobb.mt), tl: value(cobb.tl) },
    midpoint_lines: cobb.midpointLines.map(([l, r]) => [
      [l[0], l[1]],
      [r[0], r[1]],
    ]),
    detections: input.detections ?? [],
    landmarks: [...input.landmarks],
    imgURL: input.imgURL,
  };
}

export const spinePointSchema = z.object({ x: pixel, y: pixel });

export const spineLineSchema = z.object({
  start: spinePointSchema,
  end: spinePointSchema,
  /** The drag handles' positions (konva anchors); the ends by default. */
  handles: z.array(spinePointSchema).default([]),
  lineCode: z.enum(LINE_CODES).nullable().default(null),
  /** Length in the measure's unit (pixels × scale), 2 decimals. */
  linelength: z.number().finite().nullable().default(null),
});
export type SpineLineValue = z.infer<typeof spineLineSchema>;

export const spineMeasureDataSchema = z.object({
  lines: z.array(spineLineSchema).default([]),
  referenceLine: spineLineSchema.nullable().default(null),
  /** As typed: only a positive number sets the scale (SPM-11). */
  referenceLength: z.number().finite().nullable().default(null),
  unit: z.enum(SPINE_UNITS).default('none'),
  scale: z.number().finite().positive().default(1),
  /** Integer degrees for angle tools, signed as docs/spine-tools.md says; null until computable. */
  angle: z.number().finite().nullable().default(null),
  diagnosis: z.string().default(''),
  symptom: z.string().default(''),
  medicalAdvice: z.string().default(''),
});
export type SpineMeasureData = z.infer<typeof spineMeasureDataSchema>;

const measureShape = Object.fromEntries(SPINE_MEASURES.map((m) => [m, spineMeasureDataSchema.optional()])) as Record<
  SpineMeasure,
  z.ZodOptional<typeof spineMeasureDataSchema>
>;

export const spineManualDataSchema = z
  .object({
    imgUrl: z.string(),
    /** Ours: which way the patient faces on the film, which gives the sagittal signs (docs/spine-tools.md). */
    facing: z.enum(SPINE_FACINGS).default('right'),
    ...measureShape,
  })
  .superRefine((value, ctx) => {
    for (const measure of SPINE_MEASURES) {
      const lines = value[measure]?.lines ?? [];
      const coded = measure === 'ISH' || measure === 'CVH';
      const codes = lines.map((l) => l.lineCode);
      if (lines.length > SPINE_MEASURE_DEFINITIONS[measure].maxLines) {
        ctx.addIssue({ code: 'custom', path: [measure, 'lines'], message: '线段条数已达上限' });
      }
      lines.forEach((line, i) => {
        if (coded ? line.lineCode === null || codes.indexOf(line.lineCode) !== i : line.lineCode !== null) {
          ctx.addIssue({
            code: 'custom',
            path: [measure, 'lines', i, 'lineCode'],
            message: coded ? '线段编号应为 a、b、c、d 且不重复' : '只有 ISH 和 CVH 的线段带编号',
          });
        }
      });
    }
  });
export type SpineManualData = z.infer<typeof spineManualDataSchema>;
