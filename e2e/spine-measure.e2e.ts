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
let adminToken: string;
let demoStudyId: number;

beforeAll(async () => {
  platform = await platformUnderTest();
  browser = await launchBrowser();
  const { token, studyId } = await prepareAdmin(platform.baseUrl);
  [adminToken, demoStudyId] = [token, studyId];
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

async function openForm(page: Page, recordId = subjectRecordId) {
  await page.goto(`/crf/${recordId}`);
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

/** SPM-11, SPM-12: a reference line of 100 px given as 100 mm, so that 1 px is 1 mm. */
async function referenceOf100mm(page: Page) {
  await drawLine(page, [50, 700], [150, 700], '绘制参考线');
  const length = widget(page).getByLabel('参考线实际长度');
  await length.fill('100');
  await length.blur();
  await widget(page).getByLabel('单位').click();
  await settle(page);
  await page.locator('.ant-select-item-option', { hasText: /^mm$/ }).click();
  await expect.poll(() => page.locator('.spm-scale').textContent()).toBe('比例：1');
}

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
    await referenceOf100mm(page);
    await expect.poll(() => widget(page).getByRole('button', { name: '绘制参考线' }).isDisabled()).toBe(true);
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

  it('SPM-09, SPM-11, SPM-12, SPM-13: a study that chooses the literature bands diagnoses SVA by SRS–Schwab, a negative SVA included', async () => {
    const patient = await callApi<{ subjectRecordId: number }>(
      platform.baseUrl,
      'POST',
      '/api/business/subject',
      adminToken,
      { studyId: demoStudyId, subjectName: '周志刚', gender: 1, birth: '1958-04-17', diseaseCode: 'LSS' },
    );
    const page = await newPage(browser, platform.baseUrl);
    await page.setViewportSize({ width: 1600, height: 1000 });
    await signInAs(page);

    // The study's manager chooses 文献（SRS–Schwab 等） under 项目配置 · 功能设置; the choice is saved at once.
    await page.goto(`/study/config?studyId=${demoStudyId}`);
    await page.getByRole('tab', { name: '功能设置' }).click();
    const bands = page.getByRole('region', { name: '脊柱诊断分级标准' });
    await expect.poll(() => bands.getByRole('radio', { name: '默认（规范）' }).isChecked()).toBe(true);
    await bands.getByText('文献（SRS–Schwab 等）', { exact: true }).click();
    // The group shows the study as the server answers it after the save.
    await expect.poll(() => bands.getByRole('radio', { name: '文献（SRS–Schwab 等）' }).isChecked()).toBe(true);
    await expect.poll(() => bands.getByRole('radio', { name: '默认（规范）' }).isChecked()).toBe(false);

    await openForm(page, patient.subjectRecordId);
    const upload = page.locator('.spm-upload input[type=file]');
    await upload.waitFor({ state: 'attached' });
    await upload.setInputFiles({ name: 'lateral.png', mimeType: 'image/png', buffer: await xrayPng(page) });
    await page.locator('.spm-stage').waitFor();
    await pickTool(page, 'SVA');
    await referenceOf100mm(page);

    // 40 mm: the spec's bands read 矢状面轻度失衡 (under 5 cm), SRS–Schwab reads + (4 to 9.5 cm).
    await drawLine(page, [290, 100], [250, 500]);
    await expect.poll(() => text(page, 'spm-length').textContent()).toBe('40 mm');
    await expect.poll(() => text(page, 'spm-diagnosis').textContent()).toBe('矢状面中度失衡（SRS–Schwab +）');

    // C7 behind S1 with the patient facing right (anterior to the right): the offset is negative, SRS–Schwab 0.
    await widget(page).getByRole('button', { name: '删除线段 1' }).click();
    await expect.poll(() => text(page, 'spm-length').textContent()).toBe('—');
    expect(await widget(page).getByRole('radio', { name: '面向右' }).isChecked()).toBe(true);
    await drawLine(page, [220, 100], [250, 500]);
    await expect.poll(() => text(page, 'spm-length').textContent()).toBe('-30 mm');
    await expect.poll(() => text(page, 'spm-diagnosis').textContent()).toBe('矢状面平衡（SRS–Schwab 0）');
    await screenshot(page, 'spine-measure-literature');

    // Saved and reloaded, the measure reads the same by the study's bands.
    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).click();
    await messageText(page, '保存成功').waitFor();
    await page.reload();
    await page.locator('.crf-form-title', { hasText: FORM }).waitFor();
    await page.locator('.spm-stage').waitFor();
    await pickTool(page, 'SVA');
    await expect.poll(() => text(page, 'spm-length').textContent()).toBe('-30 mm');
    await expect.poll(() => text(page, 'spm-diagnosis').textContent()).toBe('矢状面平衡（SRS–Schwab 0）');
    await page.close();
  });
});
