/**
 * Recognition accuracy (docs/recognition.md) on lab sheets drawn apart from the recognition code
 * (packages/server/src/modules/recognition/lab-sheets, README.md there): eleven layouts modelled on the reports of
 * Chinese laboratory systems (ruled tables with and without codes, code first, 双栏, numbered, flags glued to values,
 * range before unit, a boxed grid, 尿常规 with qualitative rows, a two-page PDF …), six CJK fonts, clean pages and
 * phone photographs (on a desk, on a near-white surface, in perspective, shadowed, blurred, JPEG 50–85, two turned
 * 90° or 180°). Each sheet goes through what the recognition job does (readText of recognition.worker.ts: levelling,
 * PaddleOCR on onnxruntime-node; then its `rows`, or parseLabReport of its lines) and is scored two ways
 * (lab-sheets/score.ts):
 * - values: precision = printed rows read with their value / rows answered, recall = … / rows printed;
 * - items: a CRF built for the sheet (one item per printed analyte) filled as the form fills it (recognitionAnswer,
 *   recognisedEntries, matchRecognised): right, WRONG (a value that differs from the printed one), offered (a fill
 *   with verdict 'offer', for the nurse to confirm) or missed. A sheet refused counts all its items missed.
 * Per layout, per kind (clean, photo on desk, photo near-white, turned 90°/180°) and in total, with the median
 * seconds per sheet. Figures only; no thresholds.
 *
 * Two fixed sets (lab-sheets/sets.ts): BENCH_RECOGNITION_SET=tuning (default) is the one to tune against;
 * BENCH_RECOGNITION_SET=holdout has other seeds and two layouts and one font (AR PL UKai) found only there. Do not
 * tune against holdout: run it to check that a change helps lab reports rather than the tuning sheets.
 * BENCH_RECOGNITION_SET=report-image runs the earlier generator (report-image.ts, one layout in Noto):
 * BENCH_RECOGNITION_IMAGES (default 12) images from BENCH_RECOGNITION_SEED (default 17).
 * BENCH_RECOGNITION_ONLY=<layout> runs one layout's sheets; BENCH_RECOGNITION_IMAGES=n the first n sheets of a set.
 * BENCH_RECOGNITION_VERBOSE=1 lists each sheet with its wrong fills and the items it missed; =2 also the rows read.
 * BENCH_RECOGNITION_SAVE=<dir> writes each sheet's image (or PDF) there.
 * BENCH_OCR=tesseract runs tesseract.js instead (not a dependency: TESSERACT_JS_DIR names a folder where
 * tesseract.js is installed and TESSDATA_DIR one holding chi_sim and eng traineddata), for the comparison;
 * BENCH_OCR=tesseract-cli runs Debian's tesseract-ocr with tesseract-ocr-chi-sim (`tesseract` on the PATH).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseLabReport, type LabRow, type OcrLine } from '../packages/core/src/index.js';
import readText, { prepared } from '../packages/server/src/modules/recognition/recognition.worker.js';
import {
  drawReport,
  randomReport,
  reportFontsInstalled,
  seededRandom,
} from '../packages/server/src/modules/recognition/report-image.js';
import type { TruthRow } from '../packages/server/src/modules/recognition/lab-sheets/content.js';
import {
  SHEET_FONTS,
  fontInstalled,
  type SheetFont,
} from '../packages/server/src/modules/recognition/lab-sheets/fonts.js';
import { LAYOUTS } from '../packages/server/src/modules/recognition/lab-sheets/layouts.js';
import { scoreSheet, type SheetScore } from '../packages/server/src/modules/recognition/lab-sheets/score.js';
import {
  renderSheet,
  setFonts,
  sheetSet,
  type SetName,
} from '../packages/server/src/modules/recognition/lab-sheets/sets.js';

const SET = (process.env.BENCH_RECOGNITION_SET ?? 'tuning') as SetName | 'report-image';
const IMAGES = process.env.BENCH_RECOGNITION_IMAGES ? Number(process.env.BENCH_RECOGNITION_IMAGES) : undefined;
const SEED = Number(process.env.BENCH_RECOGNITION_SEED ?? 17);
const ONLY = process.env.BENCH_RECOGNITION_ONLY;
const VERBOSE = Number(process.env.BENCH_RECOGNITION_VERBOSE ?? 0);
const SAVE = process.env.BENCH_RECOGNITION_SAVE;
const ENGINE =
  process.env.BENCH_OCR === 'tesseract'
    ? 'tesseract'
    : process.env.BENCH_OCR === 'tesseract-cli'
      ? 'tesseract-cli'
      : 'paddle';
const ENGINE_NAMES = {
  paddle: 'PaddleOCR PP-OCRv4, onnxruntime-node',
  tesseract: 'tesseract.js 7, chi_sim+eng',
  'tesseract-cli': "Debian's tesseract-ocr 5 CLI, chi_sim+eng",
} as const;

/** The rows read from an image, or undefined when it was refused (too large, unreadable). */
type Reader = (image: Buffer) => Promise<LabRow[] | undefined>;

async function paddleReader(): Promise<Reader> {
  return async (image) => {
    const out = await readText({ data: new Uint8Array(image) });
    if (out.kind === 'unavailable') throw new Error('the OCR engine could not be loaded');
    if (out.kind !== 'read') return undefined;
    // The job's rows when the OCR process answers them (with their crops), else the parser's.
    const rows = (out as { rows?: LabRow[] }).rows;
    return Array.isArray(rows) ? rows : parseLabReport(out.lines);
  };
}

interface TesseractWord {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}

const box = (x0: number, y0: number, x1: number, y1: number): OcrLine['box'] => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
];
// tesseract puts a space between CJK characters; a cell is one word group here.
const joinCjk = (text: string) => text.replace(/(?<=[\u3400-\u9fff]) (?=[\u3400-\u9fff])/g, '');

async function tesseractReader(): Promise<Reader> {
  const dir = process.env.TESSERACT_JS_DIR;
  const langPath = process.env.TESSDATA_DIR;
  if (!dir || !langPath) throw new Error('BENCH_OCR=tesseract needs TESSERACT_JS_DIR and TESSDATA_DIR');
  const require = createRequire(`${dir.replace(/\/$/, '')}/`);
  const tesseract = require('tesseract.js') as {
    createWorker(
      langs: string[],
      oem: number,
      options: object,
    ): Promise<{
      recognize(image: Buffer, options: object, output: object): Promise<{ data: { blocks: unknown } }>;
      terminate(): Promise<void>;
    }>;
  };
  const worker = await tesseract.createWorker(['chi_sim', 'eng'], 1, { langPath, gzip: true, cacheMethod: 'none' });
  process.once('beforeExit', () => void worker.terminate());
  return async (image) => {
    // The same levelling as the recognition job's.
    const { data } = await worker.recognize(await prepared(image), {}, { blocks: true });
    const lines: OcrLine[] = [];
    const visit = (node: unknown) => {
      if (!node || typeof node !== 'object') return;
      const n = node as { words?: TesseractWord[]; lines?: unknown[]; paragraphs?: unknown[] };
      if (n.words) {
        for (const w of n.words) {
          const { x0, y0, x1, y1 } = w.bbox;
          lines.push({ text: joinCjk(w.text), confidence: w.confidence / 100, box: box(x0, y0, x1, y1) });
        }
        return;
      }
      for (const child of [...(n.paragraphs ?? []), ...(n.lines ?? [])]) visit(child);
    };
    for (const block of (data.blocks as unknown[]) ?? []) visit(block);
    return parseLabReport(lines);
  };
}

/**
 * Debian's tesseract-ocr with tesseract-ocr-chi-sim (BENCH_OCR=tesseract-cli): the same levelled image through the
 * command line, its words (TSV: level 5) with their boxes and confidences read as the recognition job reads lines.
 */
async function tesseractCliReader(): Promise<Reader> {
  const { execFile } = await import('node:child_process');
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'edc-tesseract-'));
  process.once('beforeExit', () => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return async (image) => {
    const file = join(dir, `${n++}.png`);
    writeFileSync(file, await prepared(image));
    const tsv = await new Promise<string>((resolve, reject) =>
      execFile('tesseract', [file, 'stdout', '-l', 'chi_sim+eng', 'tsv'], { maxBuffer: 64 << 20 }, (err, out) =>
        err ? reject(err) : resolve(out),
      ),
    );
    const lines: OcrLine[] = [];
    for (const row of tsv.split('\n').slice(1)) {
      const c = row.split('\t');
      if (c[0] !== '5' || !c[11]?.trim()) continue;
      const [x0, y0, w, h] = [c[6], c[7], c[8], c[9]].map(Number) as [number, number, number, number];
      lines.push({ text: joinCjk(c[11]), confidence: Number(c[10]) / 100, box: box(x0, y0, x0 + w, y0 + h) });
    }
    return parseLabReport(lines);
  };
}

/** One sheet to read: its bytes, what it printed, and the labels it is counted under. */
interface BenchSheet {
  id: string;
  layout: string;
  font: string;
  kind: Kind;
  title: string;
  bytes: Buffer;
  ext: string;
  rows: TruthRow[];
  photo: string;
}

const KINDS = ['clean', 'photo on desk', 'photo near-white', 'turned 90°/180°'] as const;
type Kind = (typeof KINDS)[number];
const kindOf = (photo: string): Kind =>
  photo === 'desk'
    ? 'photo on desk'
    : photo === 'white'
      ? 'photo near-white'
      : photo === 'clean'
        ? 'clean'
        : 'turned 90°/180°';

async function* labSheets(set: SetName): AsyncGenerator<BenchSheet> {
  let specs = sheetSet(set).filter((s) => !ONLY || s.layout === ONLY);
  if (IMAGES !== undefined) specs = specs.slice(0, IMAGES);
  for (const spec of specs) {
    const sheet = await renderSheet(spec);
    const { kind: photo, ...effects } = sheet.photo;
    yield {
      id: spec.id,
      layout: spec.layout,
      font: spec.font,
      kind: kindOf(photo),
      title: sheet.title,
      bytes: sheet.bytes,
      ext: sheet.mime === 'application/pdf' ? 'pdf' : sheet.mime === 'image/png' ? 'png' : 'jpg',
      rows: sheet.rows,
      photo: Object.keys(effects).length > 0 ? `${photo} ${JSON.stringify(effects)}` : photo,
    };
  }
}

/** The earlier generator's sheets (report-image.ts), for comparison with figures measured on it. */
async function* reportImageSheets(): AsyncGenerator<BenchSheet> {
  const random = seededRandom(SEED);
  const kinds = ['血常规', '生化', '尿常规'] as const;
  for (let i = 0; i < (IMAGES ?? 12); i += 1) {
    const title = kinds[i % kinds.length]!;
    const photo = i % 2 === 1;
    const printed = randomReport(title, random);
    const font = random() < 0.5 ? 'sans' : 'serif';
    const bytes = drawReport(printed, {
      title,
      random,
      font,
      ...(photo
        ? {
            rotation: (random() * 2 - 1) * 5,
            noise: 0.005 + random() * 0.02,
            jpegQuality: Math.round(50 + random() * 35),
          }
        : {}),
    });
    const rows: TruthRow[] = printed.map((r) => ({
      ...r,
      analyte: r.code,
      // 1+ and 2+ start with a digit but are grades, filled as text here.
      kind: /^\d+(?:\.\d+)?$/.test(r.value) ? 'number' : 'text',
      page: 1,
    }));
    yield {
      id: `report-image-${i + 1}`,
      layout: 'report-image',
      font: `noto-${font}`,
      kind: photo ? 'photo near-white' : 'clean',
      title,
      bytes,
      ext: photo ? 'jpg' : 'png',
      rows,
      photo: photo ? 'rotated, speckled' : 'clean',
    };
  }
}

interface Tally extends Omit<SheetScore, 'wrongFills' | 'missedItems' | 'valueMisses'> {
  sheets: number;
  seconds: number[];
}
const tally = (): Tally => ({
  sheets: 0,
  printed: 0,
  answered: 0,
  valuesRight: 0,
  items: 0,
  right: 0,
  wrong: 0,
  offered: 0,
  offeredRight: 0,
  missed: 0,
  seconds: [],
});
const COUNTED = [
  'printed',
  'answered',
  'valuesRight',
  'items',
  'right',
  'wrong',
  'offered',
  'offeredRight',
  'missed',
] as const;
function add(into: Tally, s: SheetScore, seconds: number) {
  into.sheets += 1;
  for (const k of COUNTED) into[k] += s[k];
  into.seconds.push(seconds);
}

const pct = (a: number, b: number) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)}%`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
};
const HEAD = `${'sheets'.padStart(6)} ${'values P'.padStart(9)} ${'values R'.padStart(9)} ${'items'.padStart(6)} ${'right'.padStart(7)} ${'WRONG'.padStart(7)} ${'offered'.padStart(8)} ${'missed'.padStart(7)} ${'median s'.padStart(9)}`;
function line(label: string, t: Tally): string {
  return (
    `  ${label.padEnd(22)}${String(t.sheets).padStart(6)} ${pct(t.valuesRight, t.answered).padStart(9)} ${pct(t.valuesRight, t.printed).padStart(9)} ` +
    `${String(t.items).padStart(6)} ${pct(t.right, t.items).padStart(7)} ${pct(t.wrong, t.items).padStart(7)} ${pct(t.offered, t.items).padStart(8)} ` +
    `${pct(t.missed, t.items).padStart(7)} ${median(t.seconds).toFixed(2).padStart(9)}`
  );
}

async function main() {
  if (!reportFontsInstalled()) {
    console.log('recognition bench: skipped (the CJK fonts of Debian fonts-noto-cjk are not installed)');
    return;
  }
  const read =
    ENGINE === 'tesseract'
      ? await tesseractReader()
      : ENGINE === 'tesseract-cli'
        ? await tesseractCliReader()
        : await paddleReader();
  // Load the engine once outside the timings.
  await read(drawReport([], { title: '预热' }));
  if (SAVE) fs.mkdirSync(SAVE, { recursive: true });
  const missingFonts = (Object.keys(SHEET_FONTS) as SheetFont[]).filter((f) => !fontInstalled(f));
  console.log(
    SET === 'report-image'
      ? `recognition bench (${ENGINE_NAMES[ENGINE]}), report-image: ${IMAGES ?? 12} generated reports, seed ${SEED}`
      : `recognition bench (${ENGINE_NAMES[ENGINE]}), set ${SET}${ONLY ? `, layout ${ONLY}` : ''}; fonts ${setFonts(SET).join(', ')}` +
          (missingFonts.length > 0 ? `; missing (skipped): ${missingFonts.join(', ')}` : ''),
  );
  const byLayout = new Map<string, Tally>();
  const byKind = new Map<Kind, Tally>(KINDS.map((k) => [k, tally()]));
  const byFont = new Map<string, Tally>();
  const all = tally();
  let refused = 0;
  const sheets = SET === 'report-image' ? reportImageSheets() : labSheets(SET);
  for await (const sheet of sheets) {
    if (SAVE) fs.writeFileSync(path.join(SAVE, `${sheet.id}.${sheet.ext}`), sheet.bytes);
    const started = performance.now();
    let rows: LabRow[] | undefined;
    try {
      rows = await read(sheet.bytes);
    } catch (err) {
      if (err instanceof Error && /could not be loaded/.test(err.message)) throw err;
      rows = undefined;
    }
    const seconds = (performance.now() - started) / 1000;
    // The job refuses an image where it found no row: every item missed.
    if (!rows || rows.length === 0) refused += 1;
    const s = scoreSheet(sheet.title, sheet.rows, rows && rows.length > 0 ? rows : undefined);
    for (const [map, key] of [
      [byLayout, sheet.layout],
      [byFont, sheet.font],
    ] as const) {
      if (!map.has(key)) map.set(key, tally());
      add(map.get(key)!, s, seconds);
    }
    add(byKind.get(sheet.kind)!, s, seconds);
    add(all, s, seconds);
    if (VERBOSE > 0) {
      console.log(
        `  ${sheet.id} (${sheet.font}, ${sheet.photo}): ${s.printed} rows printed, ${s.answered} read; ` +
          `items right ${s.right}, WRONG ${s.wrong}, offered ${s.offered}, missed ${s.missed}; ${seconds.toFixed(1)} s`,
      );
      for (const w of s.wrongFills) {
        console.log(
          `    WRONG ${w.item}: printed ${JSON.stringify(w.printed)}, filled ${JSON.stringify(w.filled)} from "${w.from}"`,
        );
      }
      if (s.missedItems.length > 0) console.log(`    missed: ${s.missedItems.join('; ')}`);
      if (VERBOSE > 1) {
        for (const r of rows ?? []) {
          console.log(
            `    read: ${[r.name, r.code, r.value, r.unit, r.referenceRange, r.flag].map((f) => f || '·').join(' | ')}`,
          );
        }
      }
    }
  }
  console.log(`\n  ${'by layout'.padEnd(22)}${HEAD}`);
  for (const [layout, t] of byLayout) console.log(line(layout, t));
  console.log(`\n  ${'by kind'.padEnd(22)}${HEAD}`);
  for (const [kind, t] of byKind) if (t.sheets > 0) console.log(line(kind, t));
  console.log(`\n  ${'by font'.padEnd(22)}${HEAD}`);
  for (const [font, t] of byFont) console.log(line(font, t));
  console.log(`\n${line('all', all)}`);
  console.log(
    `\n  items: ${all.items} printed; right ${all.right}, WRONG ${all.wrong}, offered ${all.offered} (of which right ${all.offeredRight}), missed ${all.missed}; ` +
      `${refused} sheet(s) refused; median ${median(all.seconds).toFixed(2)} s, slowest ${Math.max(...all.seconds).toFixed(2)} s per sheet`,
  );
  if (SET !== 'report-image') {
    console.log('  layouts:');
    for (const layout of byLayout.keys()) {
      console.log(`    ${layout}: ${LAYOUTS[layout as keyof typeof LAYOUTS].about}`);
    }
  }
}

await main();
