import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabRow, OcrLine } from '@ecrf/core';
import { recognitions } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { waitForJob } from '../export/export.service.js';
import { RECOGNITION_PATH } from './recognition.routes.js';
import { answerOf } from './recognition.service.js';
import { drawReport, randomReport, reportFontsInstalled, seededRandom, type ReportRow } from './report-image.js';
import { CROP_MAX_WIDTH, rowsWithCrops } from './row-crops.js';

/**
 * The crop of each recognised row (docs/recognition.md, "Response shape" and "Filling"): cut in the OCR process
 * from the levelled image, kept with the rows, answered with each row for the nurse to confirm the value against.
 */
const JPEG_URL = /^data:image\/jpeg;base64,[A-Za-z0-9+/]+=*$/;
/** A test that runs the OCR: a loaded two-core machine reads a report in up to half a minute. */
const OCR_TIMEOUT = 180_000;

async function decoded(crop: unknown) {
  expect(crop).toMatch(JPEG_URL);
  const bytes = Buffer.from((crop as string).slice((crop as string).indexOf(',') + 1), 'base64');
  const meta = await sharp(bytes).metadata();
  return {
    bytes: bytes.length,
    format: meta.format,
    width: meta.width ?? 0,
    height: meta.height ?? 0,
    channels: meta.channels,
  };
}

const piece = (text: string, left: number, top: number, right: number, bottom: number): OcrLine => ({
  text,
  confidence: 0.95,
  box: [
    [left, top],
    [right, top],
    [right, bottom],
    [left, bottom],
  ],
});

describe('rowsWithCrops', () => {
  it('cuts each analyte row across the rows’ full width, 0.3 text heights around it, as a greyscale JPEG at most 720 px wide', async () => {
    const page = await sharp({ create: { width: 1600, height: 900, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const lines = [
      piece('检验报告单', 600, 40, 1000, 90),
      piece('白细胞计数', 100, 300, 300, 340),
      piece('6.52', 600, 302, 680, 340),
      piece('10^9/L', 800, 300, 920, 340),
      piece('3.5-9.5', 1100, 300, 1300, 340),
      piece('血红蛋白', 100, 400, 260, 440),
      piece('98', 600, 400, 640, 440),
      piece('g/L', 800, 400, 860, 440),
    ];
    const rows = await rowsWithCrops(page, lines);
    expect(rows.map((r) => [r.name, r.value])).toEqual([
      ['白细胞计数', '6.52'],
      ['血红蛋白', '98'],
    ]);
    // Both rows span 100–1300 and a text height of 40 gives a margin of 12: 1224 × 64, scaled to 720 wide.
    for (const row of rows) {
      const crop = await decoded(row.crop);
      expect(crop).toMatchObject({ format: 'jpeg', width: CROP_MAX_WIDTH, channels: 1 });
      expect(crop.height).toBe(Math.round((64 * CROP_MAX_WIDTH) / 1224));
    }
    // Nothing to cut: the rows come as parsed.
    const bare = await rowsWithCrops(page, []);
    expect(bare).toEqual([]);
  });
});

let t: TestApp;
let admin: string;
let studyId: number;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-recognition-crops-'));

async function upload(fileName: string, data: Buffer) {
  const form = multipart({}, [{ fileName, data }]);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${studyId}`,
    headers: { ...form.headers, authorization: `Bearer ${admin}` },
    payload: form.payload,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.fileKey as string;
}

async function recognised(fileKey: string, type: number) {
  const temp = await t.call(admin, 'POST', `/api/v1/imgrec/temp?studyId=${studyId}`, { fileKey });
  expect(temp.status, JSON.stringify(temp.body)).toBe(200);
  const res = await t.app.inject({
    method: 'POST',
    url: RECOGNITION_PATH,
    payload: { url: fileKey, type, index: 0, tempId: temp.body.data.tempId },
  });
  if (res.statusCode === 200) return { body: res.json() as { data: any }, bytes: res.rawPayload.length };
  // A loaded machine outlived the call's wait: the job is followed and its answer read as the client does.
  expect(res.statusCode, res.body).toBe(202);
  const { jobId, recognitionId } = res.json().data as { jobId: string; recognitionId: number };
  expect((await waitForJob(t.ctx, jobId, OCR_TIMEOUT))?.state).toBe('done');
  const read = await t.app.inject({
    method: 'GET',
    url: `/api/v1/imgrec/${recognitionId}?studyId=${studyId}`,
    headers: { authorization: `Bearer ${admin}` },
  });
  expect(read.statusCode, read.body).toBe(200);
  return { body: read.json() as { data: any }, bytes: read.rawPayload.length };
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir } });
  ({ admin, studyId } = await openDemoStudy(t));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!reportFontsInstalled())('the answer’s rows carry their crops', () => {
  it(
    'RECOG-10: each row of a photographed report of 31 analytes carries its crop, a JPEG the size of its row; the answer stays far below 1 MB, and GET /api/v1/imgrec/{id} answers the same',
    async () => {
      // The three report kinds on one page, photographed: turned 3°, speckled, JPEG 70 (noise costs JPEG bytes).
      const random = seededRandom(23);
      const printed: ReportRow[] = [
        ...randomReport('血常规', random),
        ...randomReport('生化', random),
        ...randomReport('尿常规', random),
      ];
      const photo = drawReport(printed, { rotation: 3, noise: 0.02, jpegQuality: 70, random });
      const fileKey = await upload('化验单.jpg', photo);
      const { body, bytes } = await recognised(fileKey, 2);
      const items = body.data.items as Array<{ projectName: string; crop?: string }>;
      expect(items.length).toBeGreaterThanOrEqual(printed.length - 2);

      const crops = await Promise.all(items.map((item) => decoded(item.crop)));
      for (const crop of crops) {
        expect(crop).toMatchObject({ format: 'jpeg', channels: 1 });
        expect(crop.width).toBeLessThanOrEqual(CROP_MAX_WIDTH);
        expect(crop.width).toBeGreaterThan(400);
        // One row with its margins: a text height of about 30 pixels, not the page.
        expect(crop.height).toBeGreaterThan(15);
        expect(crop.height).toBeLessThan(80);
      }
      const cropBytes = crops.reduce((sum, c) => sum + c.bytes, 0);
      const cropChars = items.reduce((sum, i) => sum + (i.crop?.length ?? 0), 0);
      console.log(
        `crops of a ${items.length}-row photographed report: ${crops[0]!.width}×${crops[0]!.height} px, ` +
          `${Math.round(cropBytes / items.length)} B each as JPEG (${Math.round(cropChars / items.length)} characters as data URL); ` +
          `the whole answer ${(bytes / 1024).toFixed(0)} KB, its rows without crops ` +
          `${(JSON.stringify(items.map(({ crop: _crop, ...rest }) => rest)).length / 1024).toFixed(1)} KB`,
      );
      expect(bytes).toBeLessThan(512 * 1024);

      // Kept with the rows in the study's recognition row, and answered again by the owner's GET.
      const recognitionId = body.data.recognitionId as number;
      const [row] = await t.db.select().from(recognitions).where(eq(recognitions.id, recognitionId));
      expect((row!.rows as LabRow[]).map((r) => r.crop)).toEqual(items.map((i) => i.crop));
      const again = await t.call(admin, 'GET', `/api/v1/imgrec/${recognitionId}?studyId=${studyId}`);
      expect(again.status).toBe(200);
      expect(again.body.data.items.map((i: { crop?: string }) => i.crop)).toEqual(items.map((i) => i.crop));

      // RECOG-09: the data-set shape of type 1 carries them as well.
      const ret = (answerOf({ ...row!, type: 1 }) as { data: { ret: Array<{ crop?: string }> } }).data.ret;
      expect(ret.map((r) => r.crop)).toEqual(items.map((i) => i.crop));
    },
    OCR_TIMEOUT * 2,
  );
});
