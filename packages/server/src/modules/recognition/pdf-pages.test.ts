import zlib from 'node:zlib';
import { PDFDocument } from '@napi-rs/canvas';
import { afterAll, describe, expect, it } from 'vitest';
import type { LabRow } from '@ecrf/core';
import { seededRandom } from './report-image.js';
import type { PanelName } from './lab-sheets/analytes.js';
import { randomStyle, sheetContent, type TruthRow } from './lab-sheets/content.js';
import { drawPage } from './lab-sheets/draw.js';
import { fontFamily, fontInstalled } from './lab-sheets/fonts.js';
import { layoutOf, tableArea } from './lab-sheets/layouts.js';
import { renderSheet, sheetSet } from './lab-sheets/sets.js';
import { createOcrPool, OcrRefused, type OcrPool } from './ocr.pool.js';
import { MAX_PDF_PAGES, pdfPages } from './pdf-pages.js';
import { pdfOf, peakMemory } from './recognition-bombs.js';
import { MSG_REFUSED } from './recognition.service.js';
import { MAX_INPUT_PIXELS } from './recognition.worker.js';

/**
 * Every page of a PDF report read (docs/recognition.md, "How the server reads a report"): laboratory systems issue
 * reports of several pages, and reading the first alone lost the second page's analytes (the bench's two-page PDF:
 * 17 of its 40 items right). Each page gets an image's bounds; a PDF of more than MAX_PDF_PAGES pages is refused
 * whole. The tests that read print their seconds and the OCR process's peak memory.
 */
const pools: OcrPool[] = [];
const pool = () => {
  const created = createOcrPool();
  pools.push(created);
  return created;
};
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

/** A test that runs the OCR over several pages on a loaded two-core machine. */
const OCR_TIMEOUT = 240_000;

/** The printed row read: its name or code, with its value. */
const readAs = (rows: readonly LabRow[], t: TruthRow) =>
  rows.findIndex((r) => (r.name === t.name || (t.code !== '' && r.code === t.code)) && r.value === t.value);

/** A PDF as a laboratory system issues it (text in a CJK font, A4), one page per panel set: the bench's layout (j). */
function labPdf(pages: readonly (readonly PanelName[])[], seed: number): { bytes: Buffer; rows: TruthRow[] } {
  const random = seededRandom(seed);
  const layout = layoutOf('pdf-two-page');
  const { width, height, capacity } = tableArea(layout);
  const style = randomStyle(random);
  const family = fontFamily('noto-sans');
  const doc = new PDFDocument({ title: '检验报告单', creator: 'LIS', producer: 'LIS' });
  const rows: TruthRow[] = [];
  const [pw, ph] = [595.28, 841.89];
  pages.forEach((panels, i) => {
    const g = doc.beginPage(pw, ph);
    g.scale(pw / width, ph / height);
    rows.push(...drawPage(g, layout, sheetContent(panels, capacity, style, random), family, 'arrow', i + 1));
    doc.endPage();
  });
  return { bytes: doc.close(), rows };
}

const FIVE: PanelName[][] = [['血常规'], ['肝功', '肾功'], ['电解质', '血脂'], ['凝血', '心肌酶'], ['尿常规']];

/** Two A4 pages: the first with a line of text, the second `page2` (its MediaBox and resources, objects from 5). */
function twoPages(
  mediaBox: string,
  content: string,
  resources: string,
  more: ({ dict: string; stream: Buffer } | string)[],
) {
  const text = Buffer.from('BT /F1 28 Tf 60 760 Td (WBC 6.52) Tj ET', 'latin1');
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 7 0 R >> >> >>',
    { dict: '', stream: text },
    `<< /Type /Page /Parent 2 0 R /MediaBox [${mediaBox}] /Contents 6 0 R /Resources << ${resources} >> >>`,
    { dict: '', stream: Buffer.from(content, 'latin1') },
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...more,
  ]);
}

describe('the bounds of each page, before any page is read', () => {
  const ocr = pool();
  const refusal = async (pdf: Buffer) => {
    const err = await ocr.read(pdf).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OcrRefused);
    return (err as OcrRefused).reason;
  };

  it(
    'RECOG-03: a PDF of more than 5 pages is refused whole with PDF页数过多，请拆分后重试, none of it read',
    async () => {
      expect(MAX_PDF_PAGES).toBe(5);
      expect(MSG_REFUSED['too-many-pages']).toBe('PDF页数过多，请拆分后重试');
      const six = labPdf([...FIVE, ['血常规']], 7);
      await expect(pdfPages(six.bytes, { maxSide: 2000, maxImagePixels: MAX_INPUT_PIXELS })).rejects.toMatchObject({
        reason: 'too-many-pages',
      });
      expect(await refusal(six.bytes)).toBe('too-many-pages');
    },
    OCR_TIMEOUT,
  );

  it(
    'a second page 200 000 points square, or whose image claims 20 000 × 20 000 pixels, refuses the PDF as too large',
    async () => {
      expect(await refusal(twoPages('0 0 200000 200000', '', '', []))).toBe('too-large');
      const side = 20_000;
      const image = zlib.deflateSync(zlib.deflateSync(Buffer.alloc(side * side)), { level: 9 });
      const bomb = twoPages('0 0 595 842', 'q 595 0 0 842 0 0 cm /Im1 Do Q', '/XObject << /Im1 8 0 R >>', [
        {
          dict: `/Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter [/FlateDecode /FlateDecode]`,
          stream: image,
        },
      ]);
      expect(bomb.length).toBeLessThan(2_000_000);
      expect(await refusal(bomb)).toBe('too-large');
    },
    OCR_TIMEOUT,
  );
});

// Without fonts-noto-cjk the sheets would print boxes.
describe.skipIf(!fontInstalled('noto-sans'))('RECOG-03: every page of a PDF report read', () => {
  it(
    "the bench's two-page PDF: the analytes of both pages answered, in page order, each row's box and crop from its own page",
    async () => {
      const spec = sheetSet('tuning').find((s) => s.layout === 'pdf-two-page')!;
      const sheet = await renderSheet({ ...spec, font: 'noto-sans' });
      const ocr = pool();
      let pid: number | undefined;
      const began = performance.now();
      const measured = await peakMemory(
        () => (pid = ocr.processId() ?? pid),
        () => ocr.read(sheet.bytes),
      );
      const seconds = (performance.now() - began) / 1000;
      if (measured.outcome.status === 'rejected') throw measured.outcome.reason;
      const read = measured.outcome.value;
      const rows = read.rows ?? [];
      console.log(
        `two-page PDF: ${rows.length} rows of ${sheet.rows.length} printed in ${seconds.toFixed(1)} s (OCR ${read.seconds.toFixed(1)} s, models loaded in a new process); OCR process peak ${measured.ocr.peak} MB`,
      );
      const page = (n: number) => sheet.rows.filter((r) => r.page === n);
      expect(page(2).length).toBeGreaterThan(10);
      const found = (n: number) => page(n).map((t) => readAs(rows, t));
      // Every analyte of the second page answered with its value (before: none of them).
      expect(
        page(2)
          .filter((_, i) => found(2)[i]! < 0)
          .map((t) => t.name),
      ).toEqual([]);
      expect(found(1).filter((i) => i >= 0).length).toBeGreaterThanOrEqual(page(1).length - 1);
      // In page order: the first page's rows, then the second's.
      expect(Math.max(...found(1))).toBeLessThan(Math.min(...found(2)));
      // Boxes in their own page's pixels (an A4 page drawn 2000 high); the lines, pages one under another.
      expect(rows.every((r) => r.box && r.box[3] <= 2000 && r.crop)).toBe(true);
      expect(Math.max(...read.lines.flatMap((l) => l.box.map((p) => p[1])))).toBeGreaterThan(2000);

      // The second page read alone as an image answers the same rows, the same crops: each from its own page.
      const [, second] = await pdfPages(sheet.bytes, { maxSide: 2000, maxImagePixels: MAX_INPUT_PIXELS });
      const alone = (await ocr.read(second!)).rows ?? [];
      expect(rows.slice(rows.length - alone.length)).toEqual(alone);
    },
    OCR_TIMEOUT,
  );

  it(
    'a PDF of 5 pages (the bound) is read whole within the 90 s time bound: every page answered',
    async () => {
      const pdf = labPdf(FIVE, 5);
      const ocr = pool();
      // The models loaded first: what is measured is the reading of the five pages.
      await ocr.read(labPdf([['血常规']], 3).bytes);
      let pid: number | undefined;
      const measured = await peakMemory(
        () => (pid = ocr.processId() ?? pid),
        () => ocr.read(pdf.bytes),
      );
      if (measured.outcome.status === 'rejected') throw measured.outcome.reason;
      const read = measured.outcome.value;
      const rows = read.rows ?? [];
      const right = pdf.rows.filter((t) => readAs(rows, t) >= 0);
      console.log(
        `five-page PDF: ${rows.length} rows, ${right.length} of ${pdf.rows.length} printed read with their value, OCR ${read.seconds.toFixed(1)} s; OCR process peak ${measured.ocr.peak} MB`,
      );
      for (let n = 1; n <= 5; n++) {
        const printed = pdf.rows.filter((t) => t.page === n);
        expect(printed.filter((t) => readAs(rows, t) >= 0).length, `page ${n}`).toBeGreaterThan(printed.length / 2);
      }
    },
    OCR_TIMEOUT,
  );
});
