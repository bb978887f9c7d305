import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { LabRow } from '@ecrf/core';
import { reportFontsInstalled } from '../report-image.js';
import type { TruthRow } from './content.js';
import { LAYOUTS, type LayoutId } from './layouts.js';
import { scoreSheet } from './score.js';
import { HOLDOUT_ONLY_FONT, HOLDOUT_ONLY_LAYOUTS, renderSheet, sheetSet, type SheetSpec } from './sets.js';

const spec = (layout: LayoutId, photo: SheetSpec['photo'] = 'clean', seed = 11): SheetSpec => ({
  id: `t-${layout}`,
  set: 'tuning',
  layout,
  font: 'noto-sans',
  photo,
  seed,
});

/** The rows a perfect reading would answer: each value as the form's option or text holds it. */
const perfect = (rows: readonly TruthRow[]): LabRow[] =>
  rows.map((r) => ({
    name: r.name,
    code: r.code || r.analyte,
    value: r.kind === 'choice' ? r.grade! : r.value.replace(/\s*\/(HP|LP)$/, ''),
    unit: r.unit,
    referenceRange: r.range,
    flag: r.flag,
    confidence: 0.99,
  }));

// No OCR here: the generator and the scorer only. Without fonts-noto-cjk the sheets would print boxes.
describe.skipIf(!reportFontsInstalled())('lab sheets for the recognition bench', () => {
  it('draws the same bytes and rows from the same seed, and others from another seed', async () => {
    for (const s of [spec('ruled-code'), spec('two-column', 'turned-90'), spec('pdf-two-page')]) {
      const [a, b] = [await renderSheet(s), await renderSheet(s)];
      expect(Buffer.compare(a.bytes, b.bytes)).toBe(0);
      expect(a.rows).toEqual(b.rows);
      if (s.photo === 'turned-90') {
        // A landscape sheet photographed, then turned on its side (no EXIF orientation to undo it).
        const meta = await sharp(a.bytes).metadata();
        expect([meta.format, meta.width! < meta.height!, meta.orientation]).toEqual(['jpeg', true, undefined]);
        expect(Math.abs(a.photo.rotation!)).toBeGreaterThanOrEqual(2);
      }
    }
    const other = await renderSheet(spec('ruled-code', 'clean', 12));
    expect(other.rows).not.toEqual((await renderSheet(spec('ruled-code'))).rows);
  });

  it('draws every layout with its rows printed, codes only where the layout prints them', async () => {
    for (const layout of Object.keys(LAYOUTS) as LayoutId[]) {
      const sheet = await renderSheet(spec(layout));
      expect(sheet.rows.length, layout).toBeGreaterThan(3);
      const printsCode = LAYOUTS[layout].columns.some((c) => c.key === 'code' || c.key === 'nameCode');
      expect(
        sheet.rows.every((r) => (r.code !== '') === printsCode),
        layout,
      ).toBe(true);
      if (sheet.mime === 'application/pdf') {
        expect(sheet.bytes.subarray(0, 5).toString()).toBe('%PDF-');
        expect(sheet.rows.some((r) => r.page === 2)).toBe(true);
        continue;
      }
      // Ink on the page: a blank or unreadable page would not be a sheet.
      const { data } = await sharp(sheet.bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
      const dark = data.reduce((n, v) => n + (v < 128 ? 1 : 0), 0);
      expect(dark / data.length, layout).toBeGreaterThan(0.005);
    }
  });

  it('fixes two sets: half photos, turned sheets and a PDF in each, the holdout-only layouts and font in holdout only', () => {
    const [tuning, holdout] = [sheetSet('tuning'), sheetSet('holdout')];
    for (const set of [tuning, holdout]) {
      expect(set.length).toBeGreaterThanOrEqual(30);
      const photos = set.filter((s) => s.photo !== 'clean').length;
      expect(Math.abs(set.length - 2 * photos)).toBeLessThanOrEqual(2);
      expect(set.filter((s) => s.photo.startsWith('turned')).length).toBe(2);
      expect(set.filter((s) => s.layout === 'pdf-two-page')).toHaveLength(1);
    }
    expect(tuning.some((s) => HOLDOUT_ONLY_LAYOUTS.includes(s.layout) || s.font === HOLDOUT_ONLY_FONT)).toBe(false);
    for (const layout of HOLDOUT_ONLY_LAYOUTS) expect(holdout.some((s) => s.layout === layout)).toBe(true);
    const seeds = new Set(tuning.map((s) => s.seed));
    expect(holdout.some((s) => seeds.has(s.seed))).toBe(false);
    expect(sheetSet('tuning')).toEqual(tuning);
  });

  it('scores a perfect reading as no value missed and no item wrong; swapped values not right; a refusal all missed', async () => {
    const sheet = await renderSheet(spec('urine'));
    const rows = perfect(sheet.rows);
    const ok = scoreSheet(sheet.title, sheet.rows, rows);
    expect(ok.valuesRight).toBe(sheet.rows.length);
    expect(ok.wrong).toBe(0);
    expect(ok.right + ok.offered).toBe(ok.items);

    const blood = await renderSheet(spec('ruled-code', 'clean', 3));
    const read = perfect(blood.rows);
    const numbers = read.map((r, i) => [r, i] as const).filter(([r]) => /^\d+\.\d+$/.test(r.value));
    const [[first, i], [second, j]] = [numbers[0]!, numbers[1]!];
    expect(first.value).not.toBe(second.value);
    read[i] = { ...first, value: second.value };
    read[j] = { ...second, value: first.value };
    const swapped = scoreSheet(blood.title, blood.rows, read);
    expect(swapped.valuesRight).toBe(blood.rows.length - 2);
    expect(swapped.wrong + swapped.offered).toBeGreaterThanOrEqual(2);

    const refused = scoreSheet(blood.title, blood.rows, undefined);
    expect([refused.missed, refused.right, refused.wrong]).toEqual([blood.rows.length, 0, 0]);
  });
});
