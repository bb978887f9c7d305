/**
 * How far a photographed page is turned, from its text lines (docs/recognition.md, "Levelling"). The ink is found
 * against the page's own local background (a pixel clearly darker than a blurred copy of its surroundings), so a
 * darker desk around the page, a shadow over part of it or a grey cast are not ink; of the ink only text-sized
 * pieces are kept (no table rules, page edges or shadow borders); the angle is the one at which those pieces' rows
 * make the sharpest projection profile.
 */
import sharp from 'sharp';

/** A grey image, one byte a pixel. */
export interface Grey {
  data: Uint8Array;
  width: number;
  height: number;
}

/** The longest side the skew is measured on: 0.05° across 1200 pixels is a pixel. */
export const PROBE_SIDE = 1200;
/** The widest turn looked for either way (degrees). */
export const MAX_SKEW = 15;

/** The probe: the image grey, its longest side PROBE_SIDE, and its local background (a blurred copy). */
export async function probeOf(image: sharp.Sharp): Promise<{ grey: Grey; background: Uint8Array }> {
  const { data, info } = await image
    .clone()
    .flatten({ background: '#ffffff' })
    .greyscale()
    .extractChannel(0)
    .resize({ width: PROBE_SIDE, height: PROBE_SIDE, fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  // About three text heights: the background under a character is the paper around it.
  const sigma = Math.max(2, Math.max(width, height) / 80);
  const background = await sharp(data, { raw: { width, height, channels: 1 } })
    .blur(sigma)
    .extractChannel(0)
    .raw()
    .toBuffer();
  return { grey: { data: new Uint8Array(data), width, height }, background: new Uint8Array(background) };
}

/** Ink: a pixel a quarter darker than the local background, and at least 24 grey levels so. */
export function inkOf(grey: Grey, background: Uint8Array): Uint8Array {
  const ink = new Uint8Array(grey.data.length);
  for (let i = 0; i < ink.length; i++) {
    const v = grey.data[i]!;
    const bg = background[i]!;
    if (v < bg * 0.75 && bg - v >= 24) ink[i] = 1;
  }
  return ink;
}

/**
 * The pixels of the ink's text-sized pieces (8-connected), as indexes: a piece no taller than 6% and no wider than
 * 10% of the longest side (a character of a close-up of a few rows is smaller), of at least 4 pixels. Rules,
 * borders, page edges and shadows' edges are longer.
 */
export function textPixels(ink: Uint8Array, width: number, height: number): Int32Array {
  const side = Math.max(width, height);
  const maxHeight = side * 0.06;
  const maxWidth = side * 0.1;
  const label = new Int32Array(ink.length).fill(-1);
  const stack: number[] = [];
  const piece: number[] = [];
  const kept: number[] = [];
  for (let start = 0; start < ink.length; start++) {
    if (!ink[start] || label[start] !== -1) continue;
    label[start] = start;
    stack.push(start);
    piece.length = 0;
    let [x0, x1, y0, y1] = [width, 0, height, 0];
    while (stack.length) {
      const i = stack.pop()!;
      piece.push(i);
      const x = i % width;
      const y = (i - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const j = ny * width + nx;
          if (ink[j] && label[j] === -1) {
            label[j] = start;
            stack.push(j);
          }
        }
      }
    }
    if (piece.length >= 4 && y1 - y0 + 1 <= maxHeight && x1 - x0 + 1 <= maxWidth) kept.push(...piece);
  }
  return Int32Array.from(kept);
}

/** The pixels' projection across lines turned `degrees` (clockwise) from the horizontal: counts a pixel apart. */
export function profileOf(pixels: Int32Array, width: number, height: number, degrees: number): Float64Array {
  const radians = (degrees * Math.PI) / 180;
  const [cos, sin] = [Math.cos(radians), Math.sin(radians)];
  const reach = Math.ceil(Math.hypot(width, height) / 2) + 1;
  const bins = new Float64Array(reach * 2 + 2);
  const [cx, cy] = [width / 2, height / 2];
  for (let k = 0; k < pixels.length; k++) {
    const i = pixels[k]!;
    const x = (i % width) - cx;
    const y = Math.floor(i / width) - cy;
    // The pixel's distance from the line through the centre turned `degrees` clockwise (y grows downwards).
    const d = y * cos - x * sin + reach;
    const lower = Math.floor(d);
    const share = d - lower;
    bins[lower]! += 1 - share;
    bins[lower + 1]! += share;
  }
  return bins;
}

/** The sum of the squared counts: greatest when the lines the profile follows are the text's. */
export function profileScore(pixels: Int32Array, width: number, height: number, degrees: number): number {
  let sum = 0;
  for (const b of profileOf(pixels, width, height, degrees)) sum += b * b;
  return sum;
}

/**
 * How much of a profile is lines and gaps finer than `window` pixels: its squared counts over those of its moving
 * average. About 1 for a profile that only follows the page's extent or its columns, 2 and more across text lines.
 */
export function fineness(bins: Float64Array, window: number): number {
  const half = Math.max(1, Math.round(window / 2));
  let [raw, smooth, run] = [0, 0, 0];
  for (let i = 0; i < half && i < bins.length; i++) run += bins[i]!;
  for (let i = 0; i < bins.length; i++) {
    if (i + half < bins.length) run += bins[i + half]!;
    if (i - half - 1 >= 0) run -= bins[i - half - 1]!;
    const mean = run / (2 * half + 1);
    raw += bins[i]! * bins[i]!;
    smooth += mean * mean;
  }
  return smooth > 0 ? raw / smooth : 1;
}

export interface Skew {
  /**
   * Degrees the text lines are turned clockwise from the horizontal: −15 to 15, or 75 to 105 for a page lying on
   * its side. Turned back by as much, the lines are level, the page upright or upside down (the OCR tells which).
   */
  degrees: number;
  /** How many text pixels it was measured on (0: too few, the page is left as it is). */
  pixels: number;
  /**
   * The fineness of the profile across the lines found over that across the lines turned 90° from them (both at
   * their sharpest, within 15°): above 1 the lines are the text's; near 1, neither direction looks like text lines.
   */
  across: number;
}

/** The angle in [from, to] (steps of `step`) with the sharpest profile. */
function sharpest(pixels: Int32Array, width: number, height: number, from: number, to: number, step: number) {
  let best = from;
  let bestScore = -1;
  for (let d = from; d <= to + 1e-9; d += step) {
    const s = profileScore(pixels, width, height, d);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  return best;
}

/**
 * The skew of a grey probe and its background (probeOf): the sharpest profile within 15° of the horizontal and
 * within 15° of the vertical (0.5° steps), the one whose profile is finer wins (a page on its side has its lines
 * near the vertical), then refined to 0.05° around it.
 */
export function skewOfProbe(grey: Grey, background: Uint8Array): Skew {
  const { width, height } = grey;
  const pixels = textPixels(inkOf(grey, background), width, height);
  if (pixels.length < 200) return { degrees: 0, pixels: 0, across: 1 };
  // Lines and gaps finer than a fortieth of the picture: a few text heights of a photographed report.
  const window = Math.max(width, height) / 40;
  const fine = (degrees: number) => fineness(profileOf(pixels, width, height, degrees), window);
  const level = sharpest(pixels, width, height, -MAX_SKEW, MAX_SKEW, 0.5);
  const side = sharpest(pixels, width, height, 90 - MAX_SKEW, 90 + MAX_SKEW, 0.5);
  const across = fine(level) / fine(side);
  const coarse = across >= 1 ? level : side;
  const degrees = sharpest(pixels, width, height, coarse - 0.5, coarse + 0.5, 0.05);
  return {
    degrees: Math.round(degrees * 100) / 100 || 0,
    pixels: pixels.length,
    across: across >= 1 ? across : 1 / across,
  };
}

/** The skew of an image (measured on a copy; the image is unchanged). */
export async function skewOf(image: sharp.Sharp): Promise<Skew> {
  const { grey, background } = await probeOf(image);
  return skewOfProbe(grey, background);
}
