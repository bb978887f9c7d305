import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  settle,
  startPlatform,
  type Platform,
} from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';
import { sampleReportJpeg, startCameraSim, type CameraSim } from './camera-sim.js';

/** A 4×4 grey PNG: an image with no report on it. */
const BLANK_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAADklEQVR4nGNoQAIMxHEAcFIYAYPG8BkAAAAASUVORK5CYII=',
  'base64',
);

/** A one-page PDF report in Helvetica (nothing embedded): the analytes by their codes. */
function pdfReport(lines: string[]): Buffer {
  const content = `BT /F1 28 Tf 60 760 Td 40 TL\n${lines.map((l) => `(${l}) Tj T*`).join('\n')}\nET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const item = (name: string, title: string, type: string) => ({ name, title, type, option: {}, children: [] });

/** A form with one identify type: the sample report's four analytes and a remark. */
const BLOOD_FORM = {
  title: '血常规检验',
  option: { cols: 2, identifyId: 1, identifyType: 2, identifyIndex: 0 },
  children: [
    item('wbc', '白细胞计数', 'real'),
    item('rbc', '红细胞计数', 'real'),
    item('hgb', '血红蛋白', 'int'),
    item('plt', '血小板计数', 'int'),
    item('remark', '备注', 'input'),
  ],
};

/** A form offering two templates: one per section. */
const TWO_TEMPLATES = {
  title: '检验复查',
  option: { cols: 2 },
  children: [
    {
      name: 'first',
      title: '首次血常规',
      type: 'section',
      option: { identifyType: 2, identifyIndex: 0 },
      children: [item('wbc1', '白细胞计数', 'real')],
    },
    {
      name: 'again',
      title: '复查血常规',
      type: 'section',
      option: { identifyType: 2, identifyIndex: 1 },
      children: [item('wbc2', '白细胞计数', 'real')],
    },
  ],
};

let platform: Platform;
let browser: Browser;
let sim: CameraSim;
let token: string;
let studyId: number;
let subjectRecordId: number;
let bloodCrfId: number;
let twoCrfId: number;
let files: string;

const api = <T>(method: string, urlPath: string, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, urlPath, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  sim = await startCameraSim({ port: 0 });
  files = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-recognition-'));
  fs.writeFileSync(path.join(files, '血常规报告.jpg'), sampleReportJpeg(1650, 1200, 95));
  fs.writeFileSync(path.join(files, '空白.png'), BLANK_PNG);
  fs.writeFileSync(
    path.join(files, '复查报告.pdf'),
    pdfReport(['LAB REPORT', 'WBC  7.25  10^9/L  3.5-9.5', 'HGB  121  g/L  130-175 L']),
  );
  fs.writeFileSync(
    path.join(files, '肝功能.pdf'),
    pdfReport(['LAB REPORT', 'ALT  35  U/L  9-50', 'TP  70.1  g/L  65-85']),
  );

  const prepared = await prepareAdmin(platform.baseUrl);
  token = prepared.token;
  studyId = prepared.studyId;
  // The forms are set up through the API as a study designer would upload them, in a stage of their own.
  for (const definition of [BLOOD_FORM, TWO_TEMPLATES]) await api('POST', '/api/system/crf', { studyId, definition });
  const crfs = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`);
  bloodCrfId = crfs.find((c) => c.title === BLOOD_FORM.title)!.id;
  twoCrfId = crfs.find((c) => c.title === TWO_TEMPLATES.title)!.id;
  const stage = await api<{ id: number }>('POST', '/api/business/crf_menu/crf_stage', { studyId, name: '实验室检查' });
  await api('POST', '/api/business/crf_menu/crf_stage/crf/import', {
    crfStageId: stage.id,
    crfIds: [bloodCrfId, twoCrfId],
    repeat: 1,
  });
  const patient = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', {
    studyId,
    subjectName: '王化验',
    gender: 1,
    birth: '1970-03-02',
    diseaseCode: 'LSS',
  });
  subjectRecordId = patient.subjectRecordId;
});

afterAll(async () => {
  await browser?.close();
  await sim?.close();
  await platform?.stop();
  if (files) fs.rmSync(files, { recursive: true, force: true });
});

/** A page whose machine has the camera service at the simulator's address. */
async function cameraPage(): Promise<Page> {
  const page = await newPage(browser, platform.baseUrl);
  await page.context().addInitScript((base) => window.localStorage.setItem('ecrf.cameraBase', base), sim.url);
  await signInAs(page);
  return page;
}

async function openForm(page: Page, crfId: number, title: string) {
  await page.goto(`/crf/${subjectRecordId}?crfId=${crfId}`);
  await page.locator('.crf-form-title', { hasText: title }).waitFor();
}

async function openDialog(page: Page) {
  await page.locator('.crf-bar-button', { hasText: '识别' }).click();
  const dialog = page.getByRole('dialog', { name: '智能识别' });
  await dialog.waitFor();
  await settle(page);
  return dialog;
}

const messageText = (page: Page, text: string) => page.locator('.ant-message-notice', { hasText: text }).last();

/** The review step: each proposed value beside its crop of the report, ticked to be filled. */
const fillBox = (page: Page, title: string) =>
  page.getByRole('dialog', { name: '智能识别' }).getByRole('checkbox', { name: `填入 ${title}`, exact: true });

/** Waits for the review step after 识别 and answers the crops shown there once each has loaded. */
async function reviewShown(page: Page) {
  const dialog = page.getByRole('dialog', { name: '智能识别' });
  await dialog.getByRole('button', { name: '填入所选' }).waitFor({ timeout: 90_000 });
  const crops = dialog.getByRole('img', { name: / 报告原图$/ });
  await crops.first().waitFor();
  await page.waitForFunction(() =>
    [...document.querySelectorAll<HTMLImageElement>('.recognition-review img')].every(
      (img) => img.complete && img.naturalWidth > 0,
    ),
  );
  return crops;
}
const field = (page: Page, label: string) => page.locator('.crf-editor-form').getByLabel(label, { exact: true });

describe('recognition and the document camera', () => {
  it('RECOG-14: open the camera, take a photo, recognise: each value is shown beside its crop of the photo, 填入所选 fills them, marked 识别 and saved only by 保存 (RECOG-01, RECOG-03, RECOG-05, RECOG-06, RECOG-07, RECOG-11, RECOG-13, RECOG-15, RECOG-16)', async () => {
    const page = await cameraPage();
    await openForm(page, bloodCrfId, BLOOD_FORM.title);
    const dialog = await openDialog(page);
    await dialog.getByText('高拍仪识别').click();

    // RECOG-15: a photo is needed first, and the camera must be open to take one.
    await dialog.getByRole('button', { name: '识别', exact: true }).click();
    await messageText(page, '请先拍摄照片').waitFor();
    await dialog.getByRole('button', { name: /拍照/ }).click();
    await messageText(page, '请先打开摄像头').waitFor();

    // RECOG-16: the live view is the service's stream; it shows once its first frame has arrived.
    await dialog.getByRole('button', { name: /打开摄像头/ }).click();
    const live = dialog.getByRole('img', { name: '高拍仪画面' });
    await live.waitFor();
    await page.waitForFunction(
      () => ((document.querySelector('img[alt="高拍仪画面"]') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0,
    );
    expect(sim.videoOpen).toBe(true);
    await dialog.getByRole('button', { name: /拍照/ }).click();
    await dialog.getByRole('img', { name: '拍摄的照片' }).waitFor();
    // RECOG-05: at most 3300 by 2400, quality 100.
    expect(sim.lastGrab).toMatchObject({ width: 3300, height: 2400, quality: 100 });
    await settle(page);
    await screenshot(page, 'recognition-camera');
    await expectAccessible(page, 'recognition-dialog');

    const recognition = page.waitForRequest('**/imgrec/api/ignore/business/image/recognition/common**');
    await dialog.getByRole('button', { name: '识别', exact: true }).click();
    // RECOG-07: the spec's path, with no token (its path carries ignore); RECOG-06: url, type, index, tempId.
    const request = await recognition;
    expect(request.method()).toBe('POST');
    expect(request.headers()['authorization'] ?? '').toBe('');
    expect(request.postDataJSON()).toMatchObject({
      url: expect.any(String),
      type: 2,
      index: 0,
      tempId: expect.any(String),
    });
    // The review step: each proposed value beside its crop of the photo; nothing is in the form yet.
    const crops = await reviewShown(page);
    expect(await crops.count()).toBeGreaterThanOrEqual(3);
    const crop = await crops.first().evaluate((img: HTMLImageElement) => ({
      src: img.src.slice(0, 23),
      width: img.naturalWidth,
      height: img.naturalHeight,
    }));
    expect(crop.src).toBe('data:image/jpeg;base64,');
    expect(crop.width).toBeGreaterThan(300);
    expect(crop.height).toBeLessThan(crop.width / 4);
    for (const title of ['白细胞计数', '血红蛋白', '血小板计数']) {
      expect(await fillBox(page, title).isChecked()).toBe(true);
    }
    expect(await field(page, '白细胞计数').inputValue()).toBe('');
    await settle(page);
    await screenshot(page, 'recognition-review');
    await expectAccessible(page, 'recognition-review');

    // RECOG-11, RECOG-13: 填入所选, the message, and the dialog closes; the camera's video is closed with it.
    await dialog.getByRole('button', { name: '填入所选' }).click();
    await messageText(page, '识别成功，请仔细核对数据！').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => sim.videoOpen).toBe(false);

    // RECOG-01: the report's values are in the form, each marked 识别, and nothing is saved yet.
    await expect.poll(() => field(page, '白细胞计数').inputValue()).toBe('6.52');
    expect(await field(page, '血红蛋白').inputValue()).toBe('98');
    expect(await field(page, '血小板计数').inputValue()).toBe('210');
    expect(await field(page, '备注').inputValue()).toBe('');
    const tags = page.locator('.crf-editor-form .crf-recognised');
    expect(await tags.count()).toBeGreaterThanOrEqual(3);
    await page.locator('.crf-editor-actions').getByText('未保存').waitFor();
    await screenshot(page, 'recognition-filled');
    await expectAccessible(page, 'recognition-filled');

    // Confirming one value and correcting another removes their marks; the rest stay marked.
    const marked = await tags.count();
    await page.getByRole('button', { name: '确认识别结果 白细胞计数' }).click();
    await expect.poll(() => tags.count()).toBe(marked - 1);
    await field(page, '血小板计数').fill('212');
    await expect.poll(() => tags.count()).toBe(marked - 2);

    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).click();
    await page.locator('.crf-saved-at').waitFor();
    await expect.poll(() => tags.count()).toBe(0);

    // Saved as the nurse left them, and the source image is linked to the record for SDV.
    const detail = await api<{ crfDataRecord: { id: number; values: Record<string, unknown> } }>(
      'GET',
      `/api/v3/business/crf/${subjectRecordId}?crfId=${bloodCrfId}`,
    );
    const saved = detail.crfDataRecord.values;
    expect([saved.wbc, saved.hgb, saved.plt].map(Number)).toEqual([6.52, 98, 212]);
    await expect
      .poll(async () => {
        const sources = await api<Array<{ crfDataRecordId: number | null }>>(
          'GET',
          `/api/v1/imgrec/sources?studyId=${studyId}&subjectRecordId=${subjectRecordId}&crfId=${bloodCrfId}`,
        );
        return sources.map((s) => s.crfDataRecordId);
      })
      .toEqual([detail.crfDataRecord.id]);
    // A monitor checks the values against the image they were read from (SDV).
    await page.getByRole('button', { name: /识别原图（1）/ }).click();
    const sources = page.getByRole('dialog', { name: '识别原图' });
    await sources.getByRole('img', { name: /识别原图 高拍仪-\d{14}\.jpg/ }).waitFor();
    await page.waitForFunction(
      () => ((document.querySelector('.recognition-source img') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0,
    );
    await settle(page);
    await screenshot(page, 'recognition-sources');
    await page.close();
  });

  it('RECOG-04: a form offering several templates asks for one, and fills only its part; an image with no report is 识别失败 (RECOG-12)', async () => {
    const page = await cameraPage();
    await openForm(page, twoCrfId, TWO_TEMPLATES.title);
    let dialog = await openDialog(page);
    await dialog.locator('input[type="file"]').setInputFiles(path.join(files, '血常规报告.jpg'));
    await dialog.getByRole('img', { name: '待识别图片' }).waitFor();
    await dialog.getByRole('button', { name: '识别', exact: true }).click();
    await messageText(page, '请选择模板类型').waitFor();

    await dialog.getByRole('combobox', { name: '模板类型' }).click();
    await page.locator('.ant-select-item-option', { hasText: '复查血常规' }).click();
    await dialog.getByRole('button', { name: '识别', exact: true }).click();
    await reviewShown(page);
    // 重新识别 goes back to the image, filling nothing; recognising it again comes back to the review.
    await dialog.getByRole('button', { name: '重新识别' }).click();
    await dialog.getByRole('img', { name: '待识别图片' }).waitFor();
    await dialog.getByRole('button', { name: '识别', exact: true }).click();
    await reviewShown(page);
    expect(await fillBox(page, '白细胞计数').count()).toBe(1);
    await dialog.getByRole('button', { name: '填入所选' }).click();
    await messageText(page, '识别成功，请仔细核对数据！').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByLabel('白细胞计数', { exact: true }).nth(1).inputValue()).toBe('6.52');
    expect(await page.getByLabel('白细胞计数', { exact: true }).first().inputValue()).toBe('');

    dialog = await openDialog(page);
    await dialog.getByRole('combobox', { name: '模板类型' }).click();
    await page.locator('.ant-select-item-option', { hasText: '首次血常规' }).click();
    await dialog.locator('input[type="file"]').setInputFiles(path.join(files, '空白.png'));
    await dialog.getByRole('img', { name: '待识别图片' }).waitFor();
    await dialog.getByRole('button', { name: '识别', exact: true }).click();
    await messageText(page, '识别失败').waitFor({ timeout: 90_000 });
    // A failure leaves the dialog open to try another image.
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await page.close();
  });

  it("RECOG-03: an image file may be a PDF report: it is recognised and filled, unsaved; one naming none of the form's items closes with 识别完成 (RECOG-11, RECOG-13)", async () => {
    const page = await cameraPage();
    await openForm(page, bloodCrfId, BLOOD_FORM.title);
    // A report naming none of the form's items: said so, and the dialog closes without a review, filling nothing.
    const before = await field(page, '白细胞计数').inputValue();
    let dialog = await openDialog(page);
    await dialog.locator('input[type="file"]').setInputFiles(path.join(files, '肝功能.pdf'));
    await dialog.getByText('肝功能.pdf').waitFor();
    await dialog.getByRole('button', { name: '识别', exact: true }).click();
    await messageText(page, '识别完成，但报告中没有与本表单题目对应的项目').waitFor({ timeout: 90_000 });
    await dialog.waitFor({ state: 'hidden' });
    expect(await field(page, '白细胞计数').inputValue()).toBe(before);
    await page.locator('.crf-editor-actions').getByText('未保存').waitFor({ state: 'detached' });

    dialog = await openDialog(page);
    await dialog.locator('input[type="file"]').setInputFiles(path.join(files, '复查报告.pdf'));
    await dialog.getByText('复查报告.pdf').waitFor();
    await dialog.getByRole('button', { name: '识别', exact: true }).click();
    await reviewShown(page);
    // The nurse ticks what she has checked against the crops, an offered value too.
    for (const title of ['白细胞计数', '血红蛋白']) await fillBox(page, title).check();
    await dialog.getByRole('button', { name: '填入所选' }).click();
    await messageText(page, '识别成功，请仔细核对数据！').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => field(page, '白细胞计数').inputValue()).toBe('7.25');
    expect(await field(page, '血红蛋白').inputValue()).toBe('121');
    await page.getByRole('button', { name: '确认识别结果 血红蛋白' }).waitFor();
    await page.locator('.crf-editor-actions').getByText('未保存').waitFor();
    await page.close();
  });

  it('RECOG-17: an SDK code other than 0, RECOG-18: no device, RECOG-19: a failed camera call, each says so', async () => {
    const page = await cameraPage();
    await openForm(page, bloodCrfId, BLOOD_FORM.title);
    const dialog = await openDialog(page);
    await dialog.getByText('高拍仪识别').click();
    const open = dialog.getByRole('button', { name: /打开摄像头/ });

    sim.state.sdk = false;
    await open.click();
    await messageText(page, '请检查设备SDK是否打开').waitFor();

    sim.state.sdk = true;
    sim.state.device = false;
    await open.click();
    await messageText(page, '请检查设备是否已连接').waitFor();

    await sim.close();
    await open.click();
    await messageText(page, '接口获取失败').waitFor();
    await page.close();
  });
});
