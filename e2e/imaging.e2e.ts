import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, platformUnderTest, type Platform } from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';

let platform: Platform;
let browser: Browser;
let subjectRecordId: number;

beforeAll(async () => {
  platform = await platformUnderTest();
  browser = await launchBrowser();
  const { token, studyId } = await prepareAdmin(platform.baseUrl);
  const patient = await callApi<{ subjectRecordId: number }>(platform.baseUrl, 'POST', '/api/business/subject', token, {
    studyId,
    subjectName: '周志强',
    gender: 1,
    birth: '1955-02-17',
    diseaseCode: 'LSS',
  });
  subjectRecordId = patient.subjectRecordId;
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

/** One DICOM data element, explicit VR little endian. */
function element(group: number, el: number, vr: string, value: Buffer): Buffer {
  const long = ['OB', 'OW', 'SQ', 'UT', 'UN'].includes(vr);
  const head = Buffer.alloc(long ? 12 : 8);
  head.writeUInt16LE(group, 0);
  head.writeUInt16LE(el, 2);
  head.write(vr, 4, 'latin1');
  if (long) head.writeUInt32LE(value.length, 8);
  else head.writeUInt16LE(value.length, 6);
  return Buffer.concat([head, value]);
}
const text = (s: string, fill = ' ') => Buffer.from(s.length % 2 ? s + fill : s, 'latin1');
const us = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};

/**
 * A minimal uncompressed DICOM file written by hand: 64 × 64, 16-bit MONOCHROME2, two frames (a left-to-right
 * ramp, then a top-to-bottom ramp), pixel spacing 0.5 mm, window 2048/4096.
 */
function dicomFile(): Buffer {
  const size = 64;
  const pixels = Buffer.alloc(size * size * 2 * 2);
  for (let f = 0; f < 2; f += 1) {
    for (let y = 0; y < size; y += 1) {
      for (let x = 0; x < size; x += 1) pixels.writeUInt16LE((f === 0 ? x : y) * 64, ((f * size + y) * size + x) * 2);
    }
  }
  const metaBody = Buffer.concat([
    element(0x0002, 0x0001, 'OB', Buffer.from([0, 1])),
    element(0x0002, 0x0002, 'UI', text('1.2.840.10008.5.1.4.1.1.1', '\0')),
    element(0x0002, 0x0003, 'UI', text('1.2.826.0.1.3680043.2.1125.7', '\0')),
    element(0x0002, 0x0010, 'UI', text('1.2.840.10008.1.2.1', '\0')),
  ]);
  const groupLength = Buffer.alloc(4);
  groupLength.writeUInt32LE(metaBody.length);
  return Buffer.concat([
    Buffer.alloc(128),
    Buffer.from('DICM', 'latin1'),
    element(0x0002, 0x0000, 'UL', groupLength),
    metaBody,
    element(0x0008, 0x0060, 'CS', text('DX')),
    element(0x0028, 0x0002, 'US', us(1)),
    element(0x0028, 0x0004, 'CS', text('MONOCHROME2')),
    element(0x0028, 0x0008, 'IS', text('2')),
    element(0x0028, 0x0010, 'US', us(size)),
    element(0x0028, 0x0011, 'US', us(size)),
    element(0x0028, 0x0030, 'DS', text('0.5\\0.5')),
    element(0x0028, 0x0100, 'US', us(16)),
    element(0x0028, 0x0101, 'US', us(12)),
    element(0x0028, 0x0102, 'US', us(11)),
    element(0x0028, 0x0103, 'US', us(0)),
    element(0x0028, 0x1050, 'DS', text('2048')),
    element(0x0028, 0x1051, 'DS', text('4096')),
    element(0x7fe0, 0x0010, 'OW', pixels),
  ]);
}

const messageText = (page: Page, t: string) => page.locator('.ant-message-notice', { hasText: t }).last();
const viewer = (page: Page) => page.getByRole('dialog', { name: '影像' });

/** The grey value the viewer's canvas shows at a point. */
const greyAt = (page: Page, x: number, y: number) =>
  page
    .locator('.viewer-canvas')
    .evaluate(
      (canvas: HTMLCanvasElement, [px, py]) => canvas.getContext('2d')!.getImageData(px!, py!, 1, 1).data[0]!,
      [x, y],
    );

async function clickCanvas(page: Page, x: number, y: number) {
  const box = (await page.locator('.viewer-canvas').boundingBox())!;
  await page.mouse.click(box.x + x, box.y + y);
}

describe('imaging viewer', () => {
  it("影像 opens the in-app viewer: the record's X-ray, then a DICOM file with window/level, frames and a distance in mm, sent to the spine measurement", async () => {
    const page = await newPage(browser, platform.baseUrl);
    await page.setViewportSize({ width: 1600, height: 1000 });
    await signInAs(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.waitForURL(/crfId=\d+/);
    await page.locator('.crf-menu-form', { hasText: '影像学检查' }).click();
    await page.locator('.crf-form-title', { hasText: '影像学检查' }).waitFor();

    // An X-ray attached to the record through the spine measurement item, saved.
    const png = await page.evaluate(() => {
      const c = document.createElement('canvas');
      c.width = 120;
      c.height = 200;
      const g = c.getContext('2d')!;
      g.fillStyle = '#777';
      g.fillRect(0, 0, 120, 200);
      return c.toDataURL('image/png').split(',')[1]!;
    });
    const upload = page.locator('.spm-upload input[type=file]');
    await upload.waitFor({ state: 'attached' });
    await upload.setInputFiles({
      name: 'lumbar-lateral.png',
      mimeType: 'image/png',
      buffer: Buffer.from(png, 'base64'),
    });
    await page.locator('.spm-stage').waitFor();
    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).click();
    await messageText(page, '保存成功').waitFor();

    await page.getByRole('button', { name: '影像' }).click();
    await viewer(page).waitFor();
    await viewer(page).locator('.viewer-file', { hasText: 'lumbar-lateral.png' }).waitFor();
    await viewer(page).locator('.viewer-info', { hasText: '120 × 200' }).waitFor();
    await expect.poll(() => greyAt(page, 360, 300)).toBe(0x77);

    // A DICOM file from the disk: decoded and drawn by the viewer itself.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dicom-'));
    const file = path.join(dir, 'lumbar-dx.dcm');
    fs.writeFileSync(file, dicomFile());
    await viewer(page).locator('input[type=file]').setInputFiles(file);
    await viewer(page).locator('.viewer-info', { hasText: '64 × 64' }).waitFor();
    await viewer(page).locator('.viewer-info', { hasText: '像素间距 0.5 × 0.5 mm' }).waitFor();
    await viewer(page).getByTestId('viewer-frame').filter({ hasText: '第 1 / 2 帧' }).waitFor();
    // 64 px fitted into 600: zoom 9.375, the image from x 60 to 660. Frame 1 ramps left to right.
    const left = await greyAt(page, 100, 300);
    const right = await greyAt(page, 620, 300);
    expect(right).toBeGreaterThan(left);

    // Window/level: a narrow window around a low level turns the right side white.
    await viewer(page).getByLabel('窗宽', { exact: true }).fill('200');
    await viewer(page).getByLabel('窗位', { exact: true }).fill('300');
    await viewer(page).getByLabel('窗位', { exact: true }).blur();
    await viewer(page).locator('.viewer-info', { hasText: '窗宽 200 / 窗位 300' }).waitFor();
    await expect.poll(() => greyAt(page, 620, 300)).toBe(255);
    await viewer(page).getByRole('button', { name: '重置窗宽窗位' }).click();

    // Frames: the second ramps top to bottom.
    await viewer(page).getByRole('button', { name: '下一帧' }).click();
    await viewer(page).getByTestId('viewer-frame').filter({ hasText: '第 2 / 2 帧' }).waitFor();
    await expect.poll(async () => (await greyAt(page, 360, 560)) > (await greyAt(page, 360, 40))).toBe(true);

    // Distance: 40 pixels across at 0.5 mm are 20 mm (screen x 135 → image 8, 510 → 48).
    await viewer(page).getByText('测距', { exact: true }).click();
    await viewer(page).getByTestId('viewer-distance').filter({ hasText: '请点击测量起点' }).waitFor();
    await clickCanvas(page, 135, 300);
    await viewer(page).getByTestId('viewer-distance').filter({ hasText: '请点击测量终点' }).waitFor();
    await clickCanvas(page, 510, 300);
    await viewer(page).getByTestId('viewer-distance').filter({ hasText: '距离：20.00 mm' }).waitFor();

    // The frame as shown (its window) saved as a PNG, e.g. for the spine measurement, which takes JPG/PNG/BMP.
    const download = page.waitForEvent('download');
    await viewer(page).getByRole('button', { name: '导出PNG' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe('lumbar-dx-2.png');
    const exported = fs.readFileSync((await saved.path())!);
    expect(exported.subarray(1, 4).toString('latin1')).toBe('PNG');

    // Zoom keeps the measurement on the image.
    await viewer(page).getByRole('button', { name: '放大' }).click();
    await viewer(page).locator('.viewer-zoom', { hasText: '1172%' }).waitFor();
    await screenshot(page, 'imaging-viewer-dicom');
    await expectAccessible(page, 'imaging-viewer');

    // 发送到脊柱测量: the frame as shown goes through the form's upload into the spine measurement item (the form
    // has two spine items, so the item is picked), the viewer closes and the widget shows the film to measure.
    await viewer(page).getByRole('button', { name: '发送到脊柱测量' }).click();
    await page.getByRole('menuitem', { name: '脊柱矢状面手动测量' }).click();
    await viewer(page).waitFor({ state: 'hidden' });
    // 64 × 64 fitted into the 500 × 800 canvas: y 150 to 650. Frame 2 ramps top to bottom (the old film was flat grey).
    const filmGrey = (y: number) =>
      page
        .locator('.spm-stage canvas')
        .first()
        .evaluate((canvas: HTMLCanvasElement, at) => {
          const ratio = canvas.width / 500;
          return canvas.getContext('2d')!.getImageData(250 * ratio, at * ratio, 1, 1).data[0]!;
        }, y);
    await expect.poll(async () => (await filmGrey(620)) - (await filmGrey(180))).toBeGreaterThan(150);
    await screenshot(page, 'imaging-viewer-sent-to-spine');
    fs.rmSync(dir, { recursive: true, force: true });
    await page.close();
  });
});
