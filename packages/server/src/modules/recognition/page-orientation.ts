/**
 * Which way up a levelled page is, told from what the OCR read of it (docs/recognition.md, "Levelling"). Levelling
 * (levelling.ts) leaves a page's lines horizontal but cannot tell upright from upside down: the OCR reads an upside
 * down page as a few lines of low confidence (`7/6v01` for `10^9/L`), an upright one as many of high confidence.
 */
import type { OcrLine } from '@ecrf/core';

export interface ReadQuality {
  /** Characters read (spaces not counted). */
  characters: number;
  /** The characters weighted by the confidence of their line. */
  score: number;
  /** score / characters: 0.97–0.99 for the reports measured upright, 0.69–0.85 upside down. */
  mean: number;
  /**
   * The median over lines of two characters and more of the line's height over the width a character takes in it:
   * about 1–2 for lines read across the page, far more when the OCR read a page lying on its side (a column of
   * text taken as one line).
   */
  tallness: number;
}

/** Below this many characters a page holds too little text to tell its way up (nor any report's rows). */
export const FEW_CHARACTERS = 20;
/** A read this confident, of lines this shape, is upright: no second read. */
const UPRIGHT_MEAN = 0.9;
const MAX_TALLNESS = 4;
/** Of two reads of a page and of it turned 180°, the better one's score must be this many times the other's. */
const BETTER = 1.5;

const distance = (a: readonly [number, number], b: readonly [number, number]) => Math.hypot(a[0] - b[0], a[1] - b[1]);

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function qualityOf(lines: readonly OcrLine[]): ReadQuality {
  let characters = 0;
  let score = 0;
  const shapes: number[] = [];
  for (const line of lines) {
    const count = line.text.replace(/\s/g, '').length;
    characters += count;
    score += count * line.confidence;
    const [p0, p1, , p3] = line.box;
    if (count >= 2 && p0 && p1 && p3) {
      const width = distance(p0, p1);
      if (width > 0) shapes.push((distance(p0, p3) * count) / width);
    }
  }
  return { characters, score, mean: characters ? score / characters : 0, tallness: median(shapes) };
}

/** A read that needs no second: confident, of enough text, in lines across the page. */
export function plainlyUpright(q: ReadQuality): boolean {
  return q.mean >= UPRIGHT_MEAN && q.characters >= FEW_CHARACTERS && q.tallness <= MAX_TALLNESS;
}

/**
 * Of a page's read and the read of it turned 180°: the one clearly better (`first` or `turned`), or `undecided`
 * when neither is (both poor alike, or either read in columns, as of a page on its side). A page with too little
 * text for either is `first`: it holds no rows either way.
 */
export function uprightRead(first: ReadQuality, turned: ReadQuality): 'first' | 'turned' | 'undecided' {
  if (Math.max(first.characters, turned.characters) < FEW_CHARACTERS) return 'first';
  if (Math.max(first.tallness, turned.tallness) > MAX_TALLNESS) return 'undecided';
  if (first.score >= BETTER * turned.score) return 'first';
  if (turned.score >= BETTER * first.score) return 'turned';
  return 'undecided';
}

/**
 * The median slope of the lines read, in degrees clockwise, their top edges weighted alike (lines of two
 * characters and more): what levelling left of the page's turn.
 */
export function slopeOf(lines: readonly OcrLine[]): number {
  const slopes: number[] = [];
  for (const line of lines) {
    const [p0, p1] = line.box;
    if (!p0 || !p1 || line.text.replace(/\s/g, '').length < 2 || p1[0] <= p0[0]) continue;
    slopes.push((Math.atan2(p1[1] - p0[1], p1[0] - p0[0]) * 180) / Math.PI);
  }
  return median(slopes);
}
