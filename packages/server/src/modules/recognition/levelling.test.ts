import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import type { OcrLine } from '@ecrf/core';
import { deskPhoto, type DeskPhotoOptions } from './desk-photo.js';
import { skewOf } from './levelling.js';
import { createOcrPool, OcrRefused } from './ocr.pool.js';
import { qualityOf, slopeOf, uprightRead } from './page-orientation.js';
import { levelledPage } from './recognition.worker.js';
import { drawReport, randomReport, reportFontsInstalled, seededRandom, type ReportRow } from './report-image.js';

/**
 * Levelling a photographed report (docs/recognition.md, "Levelling"): the page on a darker desk, a shadow over part
 * of it, leaning away from the camera, dimmed and saved as JPEG (desk-photo.ts). Measured before this levelling,
 * the dark-pixel profile it replaced found 0° for every one of these photographs (the desk was the darkest thing in
 * them) and so the OCR read rows of two lines at once.
 */
const random = seededRandom(41);
const REPORT = randomReport('血常规', random);
const page = (rows: readonly ReportRow[] = REPORT, rotation = 0) =>
  drawReport(rows, { noise: 0.003, random, rotation, title: '血常规' });

/** A photograph's faults: a dark desk, a shadow fading over the left two thirds, keystone, dim light, JPEG 55. */
const DARK: DeskPhotoOptions = { desk: 55, shadow: 0.6, keystone: 0.1, light: 0.85, jpegQuality: 55 };
/** A lighter desk, and a shadow with a sharp edge across the page (a hand's). */
const HARD: DeskPhotoOptions = { desk: 140, shadow: 0.55, hardShadow: true, keystone: 0.05, jpegQuality: 60 };

/** Degrees between two turns of a line (a line turned 180° is the same line). */
const apart = (a: number, b: number) => {
  const d = (((a - b) % 180) + 180) % 180;
  return Math.min(d, 180 - d);
};

describe('RECOG-01: the skew is measured from the text lines of a photographed report', () => {
  for (const turn of [-6.5, -4.5, -2.5, -0.8, 0, 0.8, 2.5, 4.5, 6.5]) {
    it(`a page turned ${turn}° on a dark desk under a fading shadow measures within 0.5°`, async () => {
      const photo = await deskPhoto(page(), { ...DARK, turn });
      expect(Math.abs((await skewOf(sharp(photo))).degrees - turn)).toBeLessThanOrEqual(0.5);
    });
  }

  for (const turn of [-6.5, -3, 1.5, 4.5]) {
    it(`a page turned ${turn}° with a sharp-edged shadow across it measures within 0.5°`, async () => {
      const photo = await deskPhoto(page(), { ...HARD, turn });
      expect(Math.abs((await skewOf(sharp(photo))).degrees - turn)).toBeLessThanOrEqual(0.5);
    });
  }

  it('the text is followed, not the page: lines printed 4° askew on a level sheet measure 4°', async () => {
    const photo = await deskPhoto(page(REPORT, 4), { desk: 90, shadow: 0.4, jpegQuality: 60 });
    expect(Math.abs((await skewOf(sharp(photo))).degrees - 4)).toBeLessThanOrEqual(0.5);
  });

  it('turns up to 15° either way are found (−12°, 11°)', async () => {
    for (const turn of [-12, 11]) {
      const photo = await deskPhoto(page(), { ...DARK, turn });
      expect(Math.abs((await skewOf(sharp(photo))).degrees - turn)).toBeLessThanOrEqual(0.5);
    }
  });

  it('a page on its side (90°, −90°, 93°) is stood up: its lines measure within 0.5° of its turn', async () => {
    for (const turn of [90, -90, 93]) {
      const photo = await deskPhoto(page(), { ...DARK, turn });
      const { image, skew } = await levelledPage(photo);
      expect(apart(skew.degrees, turn)).toBeLessThanOrEqual(0.5);
      // Stood up: the landscape report is wider than tall again (upright or upside down, the OCR tells which).
      const { width = 0, height = 0 } = await sharp(image).metadata();
      expect(width).toBeGreaterThan(height);
    }
  });

  it('a page upside down (180°, 183°) is levelled as a line: its skew is its turn less 180°', async () => {
    for (const turn of [180, 183]) {
      const photo = await deskPhoto(page(), { ...HARD, turn });
      expect(apart((await skewOf(sharp(photo))).degrees, turn)).toBeLessThanOrEqual(0.5);
    }
  });

  it('a page without text is left as it is', async () => {
    const blank = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#f4f1ea' } })
      .jpeg()
      .toBuffer();
    expect((await levelledPage(blank)).skew).toMatchObject({ degrees: 0, pixels: 0 });
  });
});

describe('which way up: two reads of a page compared', () => {
  const line = (text: string, confidence: number, x = 0, y = 0, w = text.length * 30, h = 30): OcrLine => ({
    text,
    confidence,
    box: [
      [x, y],
      [x + w, y],
      [x + w, y + h],
      [x, y + h],
    ],
  });
  const upright = [line('白细胞计数 WBC 6.52 10^9/L 3.5-9.5', 0.98), line('血红蛋白 HGB 98 g/L 130-175', 0.97)];
  const upsideDown = [line("7/6v01 8'9-81", 0.74), line('% 9 %ONOW', 0.7)];

  it('the read of many confident characters wins over the few unsure ones, either way round', () => {
    expect(uprightRead(qualityOf(upright), qualityOf(upsideDown))).toBe('first');
    expect(uprightRead(qualityOf(upsideDown), qualityOf(upright))).toBe('turned');
  });

  it('two reads alike, or a read in columns (a page on its side), are undecided', () => {
    expect(uprightRead(qualityOf(upright), qualityOf(upright))).toBe('undecided');
    const columns = [
      line('白细胞计数红细胞计数血红蛋白', 0.98, 0, 0, 60, 600),
      line('WBCRBCHGBHCT', 0.97, 80, 0, 60, 600),
    ];
    expect(qualityOf(columns).tallness).toBeGreaterThan(4);
    expect(uprightRead(qualityOf(columns), qualityOf(upsideDown))).toBe('undecided');
  });

  it('a page with almost no text is read as it is (it holds no rows either way)', () => {
    expect(uprightRead(qualityOf([line('8', 0.6)]), qualityOf([line('g', 0.7)]))).toBe('first');
  });

  it('the slope of the lines read is their top edges’ median angle, clockwise', () => {
    const tilted = (deg: number, y: number) => {
      const t = (deg * Math.PI) / 180;
      return {
        ...line('血红蛋白 98', 0.9),
        box: [
          [0, y],
          [500 * Math.cos(t), y + 500 * Math.sin(t)],
          [0, 0],
          [0, 0],
        ],
      } as OcrLine;
    };
    expect(slopeOf([tilted(1, 0), tilted(2, 100), tilted(3, 200)])).toBeCloseTo(2, 5);
  });
});

/** The OCR itself (seconds an image): a few photographs, skipped without the report fonts. */
describe.skipIf(!reportFontsInstalled())('RECOG-01: photographed reports read through the OCR process', () => {
  const pool = createOcrPool();
  afterAll(() => pool.close());

  /** The printed rows whose value was read for their name; and the rows read that match no printed row. */
  const compare = (printed: readonly ReportRow[], read: readonly { name: string; code?: string; value: string }[]) => ({
    right: printed.filter((p) => read.some((r) => (r.code === p.code || r.name === p.name) && r.value === p.value))
      .length,
    junk: read.filter((r) => !printed.some((p) => (r.code === p.code || r.name === p.name) && r.value === p.value))
      .length,
  });

  it('a report turned 4.5° on a dark desk under a shadow: every value read against its own name', async () => {
    const rows = randomReport('生化', random);
    const photo = await deskPhoto(page(rows), { ...DARK, turn: 4.5 });
    const read = await pool.read(photo);
    expect(compare(rows, read.rows ?? [])).toEqual({ right: rows.length, junk: 0 });
    // What levelling left of the turn, as the OCR's own lines lie.
    expect(Math.abs(slopeOf(read.lines))).toBeLessThanOrEqual(0.5);
  }, 120_000);

  for (const turn of [90, 180]) {
    it(`a report turned ${turn}° is read upright, or refused as turned: never answered with junk rows`, async () => {
      const rows = randomReport('血常规', random);
      const photo = await deskPhoto(page(rows), { ...DARK, turn: turn + 1.5 });
      const read = await pool.read(photo).catch((err: unknown) => err);
      if (read instanceof OcrRefused) {
        expect(read.reason).toBe('orientation');
        return;
      }
      expect(read).not.toBeInstanceOf(Error);
      const { rows: got = [] } = read as Awaited<ReturnType<typeof pool.read>>;
      expect(compare(rows, got)).toEqual({ right: rows.length, junk: 0 });
    }, 120_000);
  }
});
