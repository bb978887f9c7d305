import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  settle,
  platformUnderTest,
  type Platform,
} from './harness.js';
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
    subjectName: '李卫东',
    gender: 1,
    birth: '1962-09-03',
    diseaseCode: 'LSS',
  });
  subjectRecordId = patient.subjectRecordId;
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const FORM = '影像学检查';
const messageText = (page: Page, text: string) => page.locator('.ant-message-notice', { hasText: text }).last();
const widget = (page: Page) => page.locator('.spm');

/** A lateral "film" drawn by the browser itself: a grey gradient with a column of vertebra-like blocks. */
async function xrayPng(page: Page): Promise<Buffer> {
  const dataUrl = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 400;
    c.height = 640;
    const g = c.getContext('2d')!;
    const grad = g.createLinearGradient(0, 0, 400, 0);
    grad.addColorStop(0, '#111');
    grad.addColorStop(1, '#444');
    g.fillStyle = grad;
    g.fillRect(0, 0, 400, 640);
    g.fillStyle = '#ddd';
    for (let k = 0; k < 12; k += 1) g.fillRect(170 + 20 * Math.sin(k / 3), 30 + 50 * k, 70, 38);
    return c.toDataURL('image/png');
  });
  return Buffer.from(dataUrl.split(',')[1]!, 'base64');
}

async function openForm(page: Page) {
  await page.goto(`/crf/${subjectRecordId}`);
  await page.waitForURL(/crfId=\d+/);
  await page.locator('.crf-menu-form', { hasText: FORM }).click();
  await page.locator('.crf-form-title', { hasText: FORM }).waitFor();
}

/**
 * Where a point of the 500 × 800 drawing is on screen, scrolled (by the wheel, as a person would) into the middle
 * of the window so that neither the top bar nor the form's sticky save bar covers it.
 */
async function pointOnScreen(page: Page, x: number, y: number): Promise<{ x: number; y: number }> {
  const stage = page.locator('.spm-stage .konvajs-content');
  let box = (await stage.boundingBox())!;
  const height = page.viewportSize()!.height;
  const offset = box.y + y - height / 2;
  if (Math.abs(offset) > height / 4) {
    await page.mouse.move(box.x + x, Math.min(Math.max(box.y + y, 200), height - 200));
    await page.mouse.wheel(0, offset);
    await page.waitForFunction(
      ([selector, before]) => Math.abs(document.querySelector(selector)!.getBoundingClientRect().y - before) > 1,
      ['.spm-stage .konvajs-content', box.y] as const,
    );
    box = (await stage.boundingBox())!;
  }
  return { x: box.x + x, y: box.y + y };
}

/** Clicks the canvas at a point of its 500 × 800 drawing. */
async function clickAt(page: Page, x: number, y: number) {
  const at = await pointOnScreen(page, x, y);
  await page.mouse.click(at.x, at.y);
}

/** SPM-06: 绘制线段 (or 绘制参考线), the first click starts the line, the second ends it. */
async function drawLine(page: Page, from: [number, number], to: [number, number], button = '绘制线段') {
  await widget(page).getByRole('button', { name: button }).click();
  await page.locator('.spm-hint', { hasText: '请在图像上点击线段起点' }).waitFor();
  await clickAt(page, ...from);
  await page.locator('.spm-hint', { hasText: '请点击线段终点' }).waitFor();
  await clickAt(page, ...to);
  // Drawing stops after the second click.
  await page.locator('.spm-hint').waitFor({ state: 'detached' });
}

async function pickTool(page: Page, tool: string) {
  await page.locator('.spm-tools').getByText(tool, { exact: true }).click();
  await page.locator('.spm-tool-title', { hasText: tool }).waitFor();
}

async function dragHandle(page: Page, from: [number, number], to: [number, number]) {
  const start = await pointOnScreen(page, ...from);
  const [dx, dy] = [to[0] - from[0], to[1] - from[1]];
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + dx / 2, start.y + dy / 2, { steps: 4 });
  await page.mouse.move(start.x + dx, start.y + dy, { steps: 4 });
  await page.mouse.up();
}

const text = (page: Page, testId: string) => page.getByTestId(testId);

describe('spine manual measurement', () => {
  it('SPM-01, SPM-04, SPM-05, SPM-06, SPM-07, SPM-09, SPM-10, SPM-11, SPM-12, SPM-13, SPM-14, SPM-15, SPM-24: draw TK and SVA with a reference line on an X-ray, see the diagnosis, save and reload', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await page.setViewportSize({ width: 1600, height: 1000 });
    await signInAs(page);
    await openForm(page);
    const upload = page.locator('.spm-upload input[type=file]');
    await upload.waitFor({ state: 'attached' });

    // SPM-04: a GIF is refused.
    await upload.setInputFiles({ name: 'film.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await messageText(page, '请上传JPG/PNG/BMP 格式!').waitFor();
    await upload.setInputFiles({ name: 'lateral.png', mimeType: 'image/png', buffer: await xrayPng(page) });
    await page.locator('.spm-stage').waitFor();
    // SPM-05: the canvas is 500 × 800.
    const box = (await page.locator('.spm-stage .konvajs-content').boundingBox())!;
    expect([Math.round(box.width), Math.round(box.height)]).toEqual([500, 800]);

    // TK: two lines 30° apart (rise 116 over 200).
    await drawLine(page, [100, 200], [300, 200]);
    await expect.poll(() => text(page, 'spm-angle').textContent()).toBe('—');
    await drawLine(page, [100, 500], [300, 384]);
    await expect.poll(() => text(page, 'spm-angle').textContent()).toBe('30°');
    await expect.poll(() => text(page, 'spm-diagnosis').textContent()).toBe('胸椎后凸正常');
    // SPM-07: no third line.
    await widget(page).getByRole('button', { name: '绘制线段' }).click();
    await messageText(page, '线段条数已达上限').waitFor();
    expect(await page.locator('.spm-hint').count()).toBe(0);
    // SPM-13: dragging the second line's end handle to 45° changes the angle and the band.
    await dragHandle(page, [300, 384], [300, 300]);
    await expect.poll(() => text(page, 'spm-angle').textContent()).toBe('45°');
    await expect.poll(() => text(page, 'spm-diagnosis').textContent()).toBe('胸椎后凸轻度增大');

    // SVA: the reference line first (SPM-09), its button disabled once drawn (SPM-10).
    await pickTool(page, 'SVA');
    await widget(page).getByRole('button', { name: '绘制线段' }).click();
    await messageText(page, '请先绘制参考线').waitFor();
    await drawLine(page, [50, 700], [150, 700], '绘制参考线');
    await expect.poll(() => widget(page).getByRole('button', { name: '绘制参考线' }).isDisabled()).toBe(true);
    // SPM-11, SPM-12: 100 px are 100 mm.
    const length = widget(page).getByLabel('参考线实际长度');
    await length.fill('100');
    await length.blur();
    await widget(page).getByLabel('单位').click();
    await settle(page);
    await page.locator('.ant-select-item-option', { hasText: /^mm$/ }).click();
    await expect.poll(() => page.locator('.spm-scale').textContent()).toBe('比例：1');
    // SVA is the horizontal offset of C7 (the line's higher end) from the S1 corner, anterior (right) positive:
    // 60 px → 60 mm = 6 cm, moderate imbalance (SPM-24), whatever the line's length.
    await drawLine(page, [310, 100], [250, 700]);
    await expect.poll(() => text(page, 'spm-length').textContent()).toBe('60 mm');
    await expect.poll(() => text(page, 'spm-diagnosis').textContent()).toBe('矢状面中度失衡');
    // SPM-13: a line deleted and drawn again.
    await widget(page).getByRole('button', { name: '删除线段 1' }).click();
    await expect.poll(() => text(page, 'spm-length').textContent()).toBe('—');
    await drawLine(page, [290, 100], [250, 500]);
    await expect.poll(() => text(page, 'spm-length').textContent()).toBe('40 mm');
    await expect.poll(() => text(page, 'spm-diagnosis').textContent()).toBe('矢状面轻度失衡');
    await screenshot(page, 'spine-measure-sva');
    await expectAccessible(page, 'spine-measure');

    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).click();
    await messageText(page, '保存成功').waitFor();

    // Reload: the stored value draws the same measures again.
    await page.reload();
    await page.locator('.crf-form-title', { hasText: FORM }).waitFor();
    await page.locator('.spm-stage').waitFor();
    await expect.poll(() => text(page, 'spm-angle').textContent()).toBe('45°');
    await expect.poll(() => text(page, 'spm-diagnosis').textContent()).toBe('胸椎后凸轻度增大');
    await pickTool(page, 'SVA');
    await expect.poll(() => text(page, 'spm-length').textContent()).toBe('40 mm');
    await expect.poll(() => text(page, 'spm-diagnosis').textContent()).toBe('矢状面轻度失衡');
    await screenshot(page, 'spine-measure-reloaded');

    // SPM-13: clearing the tool empties it.
    await widget(page).getByRole('button', { name: '清除' }).click();
    await expect.poll(() => text(page, 'spm-length').textContent()).toBe('—');
    await expect.poll(() => widget(page).getByRole('button', { name: '绘制参考线' }).isDisabled()).toBe(false);
    await page.close();
  });
});
