/**
 * Recognition accuracy on generated lab reports (docs/recognition.md): 血常规, 生化 and 尿常规 tables with random
 * values drawn in Noto Sans or Serif CJK, half of them clean PNGs and half "photographs" (turned up to 5°, speckle
 * noise and a grey cast, JPEG quality 50–85). Each image goes through what the recognition job does (levelling,
 * PaddleOCR on onnxruntime-node, the lab-report parser) and is scored field by field against the values drawn:
 * precision = correct fields / fields answered, recall = correct fields / fields printed, over the six fields
 * name, code, value, unit, reference range and flag; and the seconds per image. Prints figures; no thresholds.
 *
 * BENCH_RECOGNITION_IMAGES (default 12) sets the number of images; BENCH_RECOGNITION_SEED (default 17) the seed.
 * BENCH_OCR=tesseract runs tesseract.js instead (not a dependency: TESSERACT_JS_DIR names a folder where
 * tesseract.js is installed and TESSDATA_DIR one holding chi_sim and eng traineddata), for the comparison;
 * BENCH_OCR=tesseract-cli runs Debian's tesseract-ocr with tesseract-ocr-chi-sim (`tesseract` on the PATH).
 */
import { createRequire } from 'node:module';
import { parseLabReport, type LabRow, type OcrLine } from '../packages/core/src/index.js';
import readText, { prepared } from '../packages/server/src/modules/recognition/recognition.worker.js';
import {
  drawReport,
  randomReport,
  reportFontsInstalled,
  seededRandom,
  type ReportRow,
} from '../packages/server/src/modules/recognition/report-image.js';

const IMAGES = Number(process.env.BENCH_RECOGNITION_IMAGES ?? 12);
const SEED = Number(process.env.BENCH_RECOGNITION_SEED ?? 17);
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
const VERBOSE = process.env.BENCH_RECOGNITION_VERBOSE === '1';
const KINDS = ['血常规', '生化', '尿常规'] as const;
const FIELDS = ['name', 'code', 'value', 'unit', 'range', 'flag'] as const;

type Reader = (image: Buffer) => Promise<LabRow[]>;

async function paddleReader(): Promise<Reader> {
  return async (image) => {
    const out = await readText({ data: new Uint8Array(image) });
    if (out.kind !== 'read') throw new Error('the OCR engine could not be loaded');
    return parseLabReport(out.lines);
  };
}

interface TesseractWord {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}

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
          lines.push({
            // tesseract puts a space between CJK characters; a cell is one word group here.
            text: w.text.replace(/(?<=[\u3400-\u9fff]) (?=[\u3400-\u9fff])/g, ''),
            confidence: w.confidence / 100,
            box: [
              [x0, y0],
              [x1, y0],
              [x1, y1],
              [x0, y1],
            ],
          });
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
      lines.push({
        text: c[11].replace(/(?<=[\u3400-\u9fff]) (?=[\u3400-\u9fff])/g, ''),
        confidence: Number(c[10]) / 100,
        box: [
          [x0, y0],
          [x0 + w, y0],
          [x0 + w, y0 + h],
          [x0, y0 + h],
        ],
      });
    }
    return parseLabReport(lines);
  };
}

const fieldsOf = (r: ReportRow) => ({
  name: r.name,
  code: r.code,
  value: r.value,
  unit: r.unit,
  range: r.range,
  flag: r.flag,
});
const fieldsRead = (r: LabRow) => ({
  name: r.name,
  code: r.code,
  value: r.value,
  unit: r.unit,
  range: r.referenceRange,
  flag: r.flag,
});

interface Score {
  printed: number;
  answered: number;
  correct: number;
  values: { printed: number; answered: number; correct: number };
  seconds: number[];
}
const emptyScore = (): Score => ({
  printed: 0,
  answered: 0,
  correct: 0,
  values: { printed: 0, answered: 0, correct: 0 },
  seconds: [],
});

function score(into: Score, expected: readonly ReportRow[], got: readonly LabRow[], seconds: number) {
  into.printed += expected.length * FIELDS.length;
  into.answered += got.length * FIELDS.length;
  into.values.printed += expected.length;
  into.values.answered += got.length;
  into.seconds.push(seconds);
  const used = new Set<number>();
  for (const row of expected) {
    const at = got.findIndex(
      (g, i) => !used.has(i) && (g.name === row.name || (row.code !== '' && g.code === row.code)),
    );
    if (at < 0) {
      if (VERBOSE) console.log(`    ${row.name}: not found`);
      continue;
    }
    used.add(at);
    const want = fieldsOf(row);
    const read = fieldsRead(got[at]!);
    for (const f of FIELDS) {
      if (want[f] === read[f]) {
        into.correct += 1;
      } else if (VERBOSE) {
        console.log(`    ${row.name} ${f}: printed ${JSON.stringify(want[f])}, read ${JSON.stringify(read[f])}`);
      }
    }
    if (want.value === read.value) into.values.correct += 1;
  }
}

const pct = (a: number, b: number) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)}%`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
};

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
  const random = seededRandom(SEED);
  // Load the engine once outside the timings.
  await read(drawReport([], { title: '预热' }));
  const scores = { clean: emptyScore(), photo: emptyScore() };
  for (let i = 0; i < IMAGES; i += 1) {
    const kind = KINDS[i % KINDS.length]!;
    const photo = i % 2 === 1;
    const rows = randomReport(kind, random);
    const image = drawReport(rows, {
      title: kind,
      random,
      font: random() < 0.5 ? 'sans' : 'serif',
      ...(photo
        ? {
            rotation: (random() * 2 - 1) * 5,
            noise: 0.005 + random() * 0.02,
            jpegQuality: Math.round(50 + random() * 35),
          }
        : {}),
    });
    const started = performance.now();
    const got = await read(image);
    const seconds = (performance.now() - started) / 1000;
    score(photo ? scores.photo : scores.clean, rows, got, seconds);
  }
  console.log(`recognition bench (${ENGINE_NAMES[ENGINE]}), ${IMAGES} generated reports, seed ${SEED}`);
  const all = emptyScore();
  for (const [name, s] of Object.entries(scores)) {
    for (const k of ['printed', 'answered', 'correct'] as const) all[k] += s[k];
    for (const k of ['printed', 'answered', 'correct'] as const) all.values[k] += s.values[k];
    all.seconds.push(...s.seconds);
    console.log(
      `  ${name.padEnd(6)} fields: precision ${pct(s.correct, s.answered)}, recall ${pct(s.correct, s.printed)}; ` +
        `values: precision ${pct(s.values.correct, s.values.answered)}, recall ${pct(s.values.correct, s.values.printed)}; ` +
        `median ${median(s.seconds).toFixed(2)} s per image`,
    );
  }
  console.log(
    `  all    fields: precision ${pct(all.correct, all.answered)}, recall ${pct(all.correct, all.printed)}; ` +
      `median ${median(all.seconds).toFixed(2)} s, slowest ${Math.max(...all.seconds).toFixed(2)} s per image`,
  );
}

await main();
