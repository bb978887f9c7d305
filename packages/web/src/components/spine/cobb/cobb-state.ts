import { curveLevelsText, roundAngle, spineCobbLevels, spineCobbValue, type SpineCobbValue } from '@ecrf/core';

/** forms §9: the automatic tool's canvas, zoom range and step, detection scale and curve colours. */
export const COBB_CANVAS = { width: 1084, height: 2437 } as const; // SPA-06
export const COBB_ZOOM = { min: 0.1, max: 10, step: 0.1 } as const; // SPA-07
export const DETECTION_SCALE = { min: 1, max: 4 } as const; // SPA-08
export const CURVE_COLOURS = { pt: 'orange', mt: 'magenta', tl: 'lime' } as const; // SPA-09
export const CURVE_KEYS = ['pt', 'mt', 'tl'] as const;
export type CurveKey = (typeof CURVE_KEYS)[number];

/** The display scale of the 1084 × 2437 canvas on the page (it is drawn at this fraction, then zoomed). */
export const COBB_DISPLAY_SCALE = 0.4;

/** SPA-07: one wheel step zooms by 10% in or out, within 0.1–10. */
export function wheelZoom(zoom: number, deltaY: number): number {
  const next = deltaY < 0 ? zoom * (1 + COBB_ZOOM.step) : zoom / (1 + COBB_ZOOM.step);
  return Math.min(COBB_ZOOM.max, Math.max(COBB_ZOOM.min, next));
}

export function clampDetectionScale(scale: number): number {
  return Math.min(DETECTION_SCALE.max, Math.max(DETECTION_SCALE.min, scale));
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The image fitted into the canvas, its aspect kept, centred. */
export function fitImage(width: number, height: number): Rect {
  const scale = Math.min(COBB_CANVAS.width / width, COBB_CANVAS.height / height);
  const w = width * scale;
  const h = height * scale;
  return { x: (COBB_CANVAS.width - w) / 2, y: (COBB_CANVAS.height - h) / 2, width: w, height: h };
}

/** A corner's index in the flat list: vertebra k's corners are 4k … 4k + 3 (upper-left, upper-right, lower-left, lower-right). */
export const cornerIndex = (vertebra: number, corner: number) => vertebra * 4 + corner;
export const vertebraCount = (landmarks: readonly number[]) => landmarks.length / 8;

/** Corner i as a normalised point. */
export function cornerAt(landmarks: readonly number[], i: number): [number, number] {
  const half = landmarks.length / 2;
  return [landmarks[i]!, landmarks[half + i]!];
}

/** Normalised → canvas, and back. */
export const toCanvas = (rect: Rect, p: readonly [number, number]): [number, number] => [
  rect.x + p[0] * rect.width,
  rect.y + p[1] * rect.height,
];
export const fromCanvas = (rect: Rect, p: readonly [number, number]): [number, number] => [
  (p[0] - rect.x) / rect.width,
  (p[1] - rect.y) / rect.height,
];

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

/** A corner moved (kept on the image): a new list. */
export function moveCorner(landmarks: readonly number[], i: number, to: readonly [number, number]): number[] {
  const half = landmarks.length / 2;
  const next = [...landmarks];
  next[i] = clamp01(to[0]);
  next[half + i] = clamp01(to[1]);
  return next;
}

function split(landmarks: readonly number[]): { xs: number[]; ys: number[] } {
  const half = landmarks.length / 2;
  return { xs: landmarks.slice(0, half), ys: landmarks.slice(half) };
}

/** A vertebra added below the last one, the last one's shape moved down by its height and a gap. */
export function addVertebra(landmarks: readonly number[]): number[] {
  const { xs, ys } = split(landmarks);
  const n = xs.length / 4;
  const last = n - 1;
  const top = Math.min(ys[last * 4]!, ys[last * 4 + 1]!);
  const bottom = Math.max(ys[last * 4 + 2]!, ys[last * 4 + 3]!);
  const shift = Math.min((bottom - top) * 1.3, 1 - bottom);
  for (let c = 0; c < 4; c++) {
    xs.push(xs[last * 4 + c]!);
    ys.push(clamp01(ys[last * 4 + c]! + shift));
  }
  return [...xs, ...ys];
}

/** Vertebra k removed; two are always kept (the angles need a pair). */
export function removeVertebra(landmarks: readonly number[], k: number): number[] {
  const { xs, ys } = split(landmarks);
  if (xs.length / 4 <= 2 || k < 0 || k >= xs.length / 4) return [...landmarks];
  xs.splice(k * 4, 4);
  ys.splice(k * 4, 4);
  return [...xs, ...ys];
}

/** SPA-10: an angle as shown, 2 decimals; none when the landmarks gave none. */
export function formatAngle(angle: number | null | undefined): string {
  if (angle === null || angle === undefined || !Number.isFinite(angle)) return '—';
  return `${roundAngle(angle).toFixed(2)}°`;
}

/**
 * What each angle measured, shown beside it: its end vertebrae and apex (T5–T11，顶椎 T8), from core; empty for an
 * angle without a curve. The challenge's PT/MT/TL are its own order, not anatomy, so the levels say where it is.
 */
export function levelTexts(value: SpineCobbValue): Record<CurveKey, string> {
  const levels = spineCobbLevels(value);
  const n = vertebraCount(value.landmarks);
  return {
    pt: curveLevelsText(levels.pt, n),
    mt: curveLevelsText(levels.mt, n),
    tl: curveLevelsText(levels.tl, n),
  };
}

/** The stored value after an edit: the angles recomputed by core from the landmarks. */
export function recomputed(value: SpineCobbValue, landmarks: readonly number[]): SpineCobbValue {
  return spineCobbValue({
    landmarks,
    imgWidth: value.imgWidth,
    imgHeight: value.imgHeight,
    imgURL: value.imgURL,
    detections: value.detections,
  });
}

/** Where an angle's label goes: beside the lower of its two vertebrae, on the canvas. */
export function labelPosition(value: SpineCobbValue, rect: Rect, key: CurveKey, order: number): [number, number] {
  const [, lower] = value.angles[key].idxs;
  const line = value.midpoint_lines[lower];
  if (!line) return [rect.x + 10, rect.y + 40 * (order + 1)];
  const [, right] = line;
  const p = toCanvas(rect, [right[0] / value.imgWidth, right[1] / value.imgHeight]);
  return [Math.min(p[0] + 30, COBB_CANVAS.width - 260), p[1] + 40 * order];
}
