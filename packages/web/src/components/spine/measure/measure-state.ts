import {
  DEFAULT_SPINE_BAND_SET,
  SPINE_MEASURES,
  SPINE_MEASURE_DEFINITIONS,
  canAddLine,
  diagnose,
  lineLength,
  measureAngle,
  pelvicMismatch,
  readSpineMeasure,
  referenceScale,
  roundLength,
  roundMeasurement,
  slipRatio,
  svaOffset,
  toCentimetres,
  type AddLineCheck,
  type SpineBandSet,
  type SpineFacing,
  type SpineLine,
  type SpineLineValue,
  type SpineManualData,
  type SpineMeasure,
  type SpineMeasureData,
  type SpinePoint,
  type SpineUnit,
} from '@ecrf/core';

/**
 * The manual measurement widget's state as pure functions (forms §3, §4, §9): one SpineMeasureData per measure,
 * every derived field (scale, linelength, angle, diagnosis, symptom, medicalAdvice) recomputed from the lines,
 * the reference line, its real length, the unit, the film's facing and the study's band set after each edit. The
 * canvas only calls these.
 */

export type MeasureValues = Partial<Record<SpineMeasure, SpineMeasureData>>;

export interface MeasureDocument {
  imgUrl: string;
  /** Which way the patient faces on the film: the sagittal signs (docs/spine-tools.md). Stored. */
  facing: SpineFacing;
  measures: MeasureValues;
  /** The study's 脊柱诊断分级标准 the diagnoses are read by. Not stored: it is the study's. */
  bandSet: SpineBandSet;
}

/** A new film: no measures, facing right (the default), diagnosed by the study's bands. */
export const newDocument = (imgUrl: string, bandSet: SpineBandSet = DEFAULT_SPINE_BAND_SET): MeasureDocument => ({
  imgUrl,
  facing: 'right',
  measures: {},
  bandSet,
});

export const emptyMeasure = (): SpineMeasureData => ({
  lines: [],
  referenceLine: null,
  referenceLength: null,
  unit: 'none',
  scale: 1,
  angle: null,
  diagnosis: '',
  symptom: '',
  medicalAdvice: '',
});

/** The stored value (JSON text) read as a document, diagnosed by `bandSet`; an unreadable value gives null. */
export function readDocument(raw: unknown, bandSet: SpineBandSet = DEFAULT_SPINE_BAND_SET): MeasureDocument | null {
  const data = readSpineMeasure(raw);
  if (!data) return null;
  const measures: MeasureValues = {};
  for (const m of SPINE_MEASURES) if (data[m]) measures[m] = data[m];
  return { imgUrl: data.imgUrl, facing: data.facing, measures, bandSet };
}

/** Whether a measure holds anything worth storing. */
const isBlank = (d: SpineMeasureData) => d.lines.length === 0 && !d.referenceLine && d.referenceLength === null;

/** The stored value: imgUrl and the measures that hold something, as the JSON of spineManualDataSchema. */
export function writeDocument(doc: MeasureDocument): string {
  const out: Partial<SpineManualData> & { imgUrl: string } = { imgUrl: doc.imgUrl, facing: doc.facing };
  for (const m of SPINE_MEASURES) {
    const d = doc.measures[m];
    if (d && !isBlank(d)) out[m] = d;
  }
  return JSON.stringify(out);
}

const toLine = (start: SpinePoint, end: SpinePoint): SpineLineValue => ({
  start,
  end,
  handles: [start, end],
  lineCode: null,
  linelength: null,
});

/** What a measure shows: the angle (or 无法计算角度), lengths, the ratio and the diagnosis texts. */
export interface MeasureResult {
  data: SpineMeasureData;
  /** 无法计算角度 when the two lines give no angle. */
  angleMessage: string | null;
  /** ISH and CVH: mean(a, b, c) / d, 2 decimals. */
  ratio: number | null;
  /** SVA: the signed horizontal offset of the C7 plumb line from the S1 corner, in its unit, 2 decimals. */
  sva: number | null;
  /** PI: PI − LL in degrees when LL is measured on the same film. */
  mismatch: number | null;
}

/** LL's angle as shown, from its lines: PI's diagnosis reads PI−LL. */
const lordosisOf = (doc: MeasureDocument): number | null => {
  const ll = measureAngle('LL', doc.measures.LL?.lines ?? [], doc.facing);
  return ll.ok ? ll.degrees : null;
};

/**
 * Recomputes every derived field of a measure from its lines, reference line, reference length and unit, the
 * document's facing and band set (and, for PI, LL's angle). `input` defaults to the measure as the document holds it.
 */
export function recompute(
  doc: MeasureDocument,
  measure: SpineMeasure,
  input: SpineMeasureData = measureOf(doc, measure),
): MeasureResult {
  const def = SPINE_MEASURE_DEFINITIONS[measure];
  const scale = def.kind === 'distance' ? referenceScale(input.referenceLine, input.referenceLength) : 1;
  const lines = input.lines.map((l) => ({
    ...l,
    handles: [l.start, l.end],
    linelength: lineLength(l, scale),
  }));
  const referenceLine = input.referenceLine
    ? {
        ...input.referenceLine,
        handles: [input.referenceLine.start, input.referenceLine.end],
        linelength: lineLength(input.referenceLine, scale),
      }
    : null;
  let angle: number | null = null;
  let angleMessage: string | null = null;
  let ratio: number | null = null;
  let value: number | null = null;
  let sva: number | null = null;
  let mismatch: number | null = null;
  if (def.kind === 'angle') {
    const result = measureAngle(measure, lines, doc.facing);
    if (result.ok) angle = value = result.degrees;
    else angleMessage = result.message;
    if (measure === 'PI') mismatch = value = pelvicMismatch(angle, lordosisOf(doc));
  } else if (def.lineCodes) {
    const r = slipRatio(lines);
    ratio = r === null ? null : roundMeasurement(r, 2);
    value = r;
  } else if (lines[0]) {
    sva = roundLength(svaOffset(lines[0], doc.facing) * scale) + 0;
    value = toCentimetres(sva, input.unit);
  }
  const dx = diagnose(measure === 'PI' ? 'PI-LL' : measure, value, doc.bandSet);
  return {
    data: {
      ...input,
      lines,
      referenceLine,
      scale,
      angle,
      diagnosis: dx?.diagnosis ?? '',
      symptom: dx?.symptom ?? '',
      medicalAdvice: dx?.medicalAdvice ?? '',
    },
    angleMessage,
    ratio,
    sva,
    mismatch,
  };
}

export const measureOf = (doc: MeasureDocument, measure: SpineMeasure): SpineMeasureData =>
  doc.measures[measure] ?? emptyMeasure();

/** Every measure of the document recomputed: the facing and LL reach other measures than the one edited. */
function recomputeAll(doc: MeasureDocument): MeasureDocument {
  const measures: MeasureValues = {};
  for (const m of SPINE_MEASURES) {
    const d = doc.measures[m];
    if (d) measures[m] = recompute(doc, m, d).data;
  }
  return { ...doc, measures };
}

const update = (doc: MeasureDocument, measure: SpineMeasure, data: SpineMeasureData): MeasureDocument =>
  recomputeAll({ ...doc, measures: { ...doc.measures, [measure]: data } });

/** Which way the patient faces on the film: every sagittal sign follows it. */
export function setFacing(doc: MeasureDocument, facing: SpineFacing): MeasureDocument {
  return facing === doc.facing ? doc : recomputeAll({ ...doc, facing });
}

/** SPM-07, SPM-09, SPM-03: whether the 绘制线段 button may start a line now. */
export function checkStartLine(doc: MeasureDocument, measure: SpineMeasure): AddLineCheck {
  return canAddLine(measure, measureOf(doc, measure));
}

/** SPM-06: a finished line (the second click) is added with the next free code (ISH, CVH). */
export function addLine(
  doc: MeasureDocument,
  measure: SpineMeasure,
  start: SpinePoint,
  end: SpinePoint,
): MeasureDocument {
  const data = measureOf(doc, measure);
  const check = canAddLine(measure, data);
  if (!check.ok) return doc;
  return update(doc, measure, { ...data, lines: [...data.lines, { ...toLine(start, end), lineCode: check.lineCode }] });
}

/** SPM-09, SPM-10: the reference line of a distance tool; a second one is refused. */
export function setReferenceLine(
  doc: MeasureDocument,
  measure: SpineMeasure,
  start: SpinePoint,
  end: SpinePoint,
): MeasureDocument {
  const data = measureOf(doc, measure);
  if (data.referenceLine) return doc;
  return update(doc, measure, { ...data, referenceLine: toLine(start, end) });
}

/** SPM-11: the reference line's real length as typed; null when cleared. */
export function setReferenceLength(
  doc: MeasureDocument,
  measure: SpineMeasure,
  length: number | null,
): MeasureDocument {
  return update(doc, measure, { ...measureOf(doc, measure), referenceLength: length });
}

/** SPM-12: the unit of a distance tool's lengths. */
export function setUnit(doc: MeasureDocument, measure: SpineMeasure, unit: SpineUnit): MeasureDocument {
  return update(doc, measure, { ...measureOf(doc, measure), unit });
}

/** SPM-13: one line deleted (index), or the reference line ('reference'). */
export function deleteLine(doc: MeasureDocument, measure: SpineMeasure, which: number | 'reference'): MeasureDocument {
  const data = measureOf(doc, measure);
  if (which === 'reference') return update(doc, measure, { ...data, referenceLine: null });
  return update(doc, measure, { ...data, lines: data.lines.filter((_, i) => i !== which) });
}

/** SPM-13: a handle dragged to a new point: end 0 is the start, 1 the end. */
export function moveHandle(
  doc: MeasureDocument,
  measure: SpineMeasure,
  which: number | 'reference',
  end: 0 | 1,
  to: SpinePoint,
): MeasureDocument {
  const data = measureOf(doc, measure);
  const move = <L extends SpineLine>(l: L): L => (end === 0 ? { ...l, start: to } : { ...l, end: to });
  if (which === 'reference') {
    return data.referenceLine ? update(doc, measure, { ...data, referenceLine: move(data.referenceLine) }) : doc;
  }
  return update(doc, measure, { ...data, lines: data.lines.map((l, i) => (i === which ? move(l) : l)) });
}

/** SPM-13: everything of the current tool cleared (its unit stays). */
export function clearMeasure(doc: MeasureDocument, measure: SpineMeasure): MeasureDocument {
  const unit = measureOf(doc, measure).unit;
  const measures = { ...doc.measures };
  delete measures[measure];
  return unit === 'none'
    ? recomputeAll({ ...doc, measures })
    : update({ ...doc, measures }, measure, { ...emptyMeasure(), unit });
}

/** A point kept inside the 500 × 800 canvas, to whole pixels (clicks land on pixels). */
export function clampPoint(p: SpinePoint, width: number, height: number): SpinePoint {
  return { x: Math.round(Math.min(Math.max(p.x, 0), width)), y: Math.round(Math.min(Math.max(p.y, 0), height)) };
}

/** The image fitted inside the canvas, centred, keeping its aspect ratio. */
export function fitImage(
  image: { width: number; height: number },
  canvas: { width: number; height: number },
): { x: number; y: number; width: number; height: number } {
  if (!(image.width > 0 && image.height > 0)) return { x: 0, y: 0, width: canvas.width, height: canvas.height };
  const k = Math.min(canvas.width / image.width, canvas.height / image.height);
  const width = image.width * k;
  const height = image.height * k;
  return { x: (canvas.width - width) / 2, y: (canvas.height - height) / 2, width, height };
}
