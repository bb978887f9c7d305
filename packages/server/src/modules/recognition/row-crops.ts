/**
 * The crops the nurse confirms recognised values against (docs/recognition.md, "Filling"): each analyte row of the
 * report cut out of the levelled image the OCR read, in the OCR process (recognition.worker.ts), so neither the
 * decoding nor the encoding runs in the server.
 */
import sharp from 'sharp';
import { parseLabReport, type LabRow, type OcrLine, type RowBox } from '@ecrf/core';

/** Around a row, in text heights: enough to show the characters whole when the row was read a little askew. */
const MARGIN = 0.3;
/**
 * The widest a crop is: a table row of a 2000-pixel page at 720 pixels keeps a printed character about 12 pixels
 * high, legible beside the value it confirms, and a report of 40 rows stays far below 1 MB of answer.
 */
export const CROP_MAX_WIDTH = 720;
/** Greyscale JPEG at this quality: printed text stays sharp enough to read; colour tells nothing here. */
const QUALITY = 70;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** A crop in the page's pixels. */
export interface CropRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The horizontal extents of the page's tables: the rows whose extents overlap, directly or through another row,
 * are one table (a short row, name and value only, overlaps its table's wide rows); left to right.
 */
function columnBands(boxes: readonly RowBox[]): [number, number][] {
  const bands: [number, number][] = [];
  for (const [left, , right] of [...boxes].sort((a, b) => a[0] - b[0])) {
    const last = bands.at(-1);
    if (last && left < last[1]) last[1] = Math.max(last[1], right);
    else bands.push([left, right]);
  }
  return bands;
}

/**
 * Where each row is cut, in `boxes` order (undefined for a row without a box, or one too thin to cut): across its
 * own table (the union of the extents of the rows in its column band, so a table's crops line up, and on a page of
 * tables side by side none shows the neighbouring table), the row's own height, both with a margin of MARGIN text
 * heights (the median row height) that stops at the page's edge and halfway to the neighbouring table.
 */
export function cropRectangles(
  boxes: readonly (RowBox | undefined)[],
  page: { width: number; height: number },
): (CropRect | undefined)[] {
  const present = boxes.filter((box): box is RowBox => box !== undefined);
  const margin = MARGIN * median(present.map((b) => b[3] - b[1]));
  const bands = columnBands(present).map(([left, right], i, all) => {
    const before = i > 0 ? (all[i - 1]![1] + left) / 2 : 0;
    const after = i < all.length - 1 ? (right + all[i + 1]![0]) / 2 : page.width;
    return { from: left, to: right, left: Math.max(before, left - margin), right: Math.min(after, right + margin) };
  });
  const clamp = (v: number, max: number) => Math.min(max, Math.max(0, Math.round(v)));
  return boxes.map((box) => {
    if (!box) return undefined;
    const band = bands.find((b) => box[0] >= b.from && box[0] <= b.to)!;
    const left = clamp(band.left, page.width);
    const right = clamp(band.right, page.width);
    const top = clamp(box[1] - margin, page.height);
    const bottom = clamp(box[3] + margin, page.height);
    return right - left < 2 || bottom - top < 2 ? undefined : { left, top, width: right - left, height: bottom - top };
  });
}

/**
 * The report's analyte rows (core `parseLabReport`), each with the crop of its row (`cropRectangles`: the width of
 * its table, so every crop shows the row from its name to its range, aligned with the others of its table), as a
 * greyscale JPEG data URL at most CROP_MAX_WIDTH wide. `image` is the image the OCR read, the pixels the rows'
 * boxes are in.
 */
export async function rowsWithCrops(image: Buffer, lines: readonly OcrLine[]): Promise<LabRow[]> {
  const rows = parseLabReport(lines);
  const boxes = rows.map((row) => row.box).filter((box): box is RowBox => box !== undefined);
  if (boxes.length === 0) return rows;
  // One decode of the page; each crop is then cut from its grey pixels.
  const { data, info } = await sharp(image).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const rects = cropRectangles(
    rows.map((row) => row.box),
    { width, height },
  );
  const out: LabRow[] = [];
  for (const [i, row] of rows.entries()) {
    const rect = rects[i];
    if (!rect) {
      out.push(row);
      continue;
    }
    const jpeg = await sharp(data, { raw: { width, height, channels: 1 } })
      .extract(rect)
      .resize({ width: CROP_MAX_WIDTH, withoutEnlargement: true })
      // One channel in the JPEG too: sharp writes a grey raw input as sRGB unless told, a third of the bytes.
      .toColourspace('b-w')
      .jpeg({ quality: QUALITY })
      .toBuffer();
    out.push({ ...row, crop: `data:image/jpeg;base64,${jpeg.toString('base64')}` });
  }
  return out;
}
