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

/**
 * The report's analyte rows (core `parseLabReport`), each with the crop of its row: the full width of the
 * report's rows (every crop shows the row from its name to its range, aligned with the others) and the row's own
 * height, both with a margin of MARGIN text heights (the median row height), as a greyscale JPEG data URL at most
 * CROP_MAX_WIDTH wide. `image` is the image the OCR read, the pixels the rows' boxes are in.
 */
export async function rowsWithCrops(image: Buffer, lines: readonly OcrLine[]): Promise<LabRow[]> {
  const rows = parseLabReport(lines);
  const boxes = rows.map((row) => row.box).filter((box): box is RowBox => box !== undefined);
  if (boxes.length === 0) return rows;
  // One decode of the page; each crop is then cut from its grey pixels.
  const { data, info } = await sharp(image).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const margin = MARGIN * median(boxes.map((b) => b[3] - b[1]));
  const clampX = (x: number) => Math.min(width, Math.max(0, Math.round(x)));
  const clampY = (y: number) => Math.min(height, Math.max(0, Math.round(y)));
  const left = clampX(Math.min(...boxes.map((b) => b[0])) - margin);
  const right = clampX(Math.max(...boxes.map((b) => b[2])) + margin);
  const out: LabRow[] = [];
  for (const row of rows) {
    const top = row.box ? clampY(row.box[1] - margin) : 0;
    const bottom = row.box ? clampY(row.box[3] + margin) : 0;
    if (!row.box || right - left < 2 || bottom - top < 2) {
      out.push(row);
      continue;
    }
    const jpeg = await sharp(data, { raw: { width, height, channels: 1 } })
      .extract({ left, top, width: right - left, height: bottom - top })
      .resize({ width: CROP_MAX_WIDTH, withoutEnlargement: true })
      // One channel in the JPEG too: sharp writes a grey raw input as sRGB unless told, a third of the bytes.
      .toColourspace('b-w')
      .jpeg({ quality: QUALITY })
      .toBuffer();
    out.push({ ...row, crop: `data:image/jpeg;base64,${jpeg.toString('base64')}` });
  }
  return out;
}
