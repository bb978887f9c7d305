import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';

/**
 * 参考范围 (issue 37) in the browser: the data manager loads a site laboratory's range for 白细胞 (WBC) in 项目配置 ·
 * 参考范围, a nurse saves 实验室检查 for a patient of that site with a value inside the form's own range (3.5–9.5)
 * but above the site's (3.5–6.0), and the form shows ↑ 偏高 with the site's range in its tooltip.
 */

let platform: Platform;
let browser: Browser;
let page: Page;
let admin: string;
let studyId: number;
let subjectRecordId: number;

const api = <T>(method: string, path: string, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, admin, body);
const form = (p: Page) => p.locator('.crf-editor-form');

async function fill(scope: Locator, label: string, value: string) {
  const input = scope.getByLabel(label, { exact: true });
  await input.fill(value);
  await input.blur();
}

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const site = await api<{ deptId: number }>('POST', '/api/system/dept', {
    deptName: '丙中心',
    parentId: 1,
    orderNum: 5,
  });
  const patient = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', {
    studyId,
    subjectName: '范围患者',
    gender: 1,
    birth: '1962-08-15',
    diseaseCode: 'LSS',
    deptId: site.deptId,
  });
  subjectRecordId = patient.subjectRecordId;
  page = await newPage(browser, platform.baseUrl);
  await signInAs(page);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('参考范围 in the browser', () => {
  it('a range loaded for the site judges the site’s patient: 8.2 is ↑ by the site’s 3.5–6.0', async () => {
    await page.goto(`/study/config?studyId=${studyId}`);
    await page.getByRole('tab', { name: '参考范围' }).click();
    await page.getByRole('button', { name: /添加参考范围/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('分中心').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('丙中心', { exact: true }).click();
    await dialog.getByLabel('项目代码').fill('WBC');
    await dialog.getByLabel('项目名称').fill('白细胞计数');
    await dialog.getByLabel('单位', { exact: true }).fill('10^9/L');
    await dialog.getByLabel('下限', { exact: true }).fill('3.5');
    await dialog.getByLabel('上限', { exact: true }).fill('6');
    await dialog.getByLabel('生效日期').fill('2020-01-01');
    await dialog.getByLabel('生效日期').press('Enter');
    await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
    const row = page.getByRole('row').filter({ hasText: '白细胞计数' });
    await row.waitFor();
    expect(await row.textContent()).toContain('丙中心');
    await screenshot(page, 'lab-ranges-panel');
    await expectAccessible(page, 'lab-ranges-panel');

    await page.goto(`/crf/${subjectRecordId}`);
    const applicable = page.waitForResponse((r) => r.url().includes('/api/business/lab-ranges/applicable'));
    await page.locator('.crf-menu-form', { hasText: '实验室检查' }).click();
    await page.locator('.crf-form-title', { hasText: '实验室检查' }).waitFor();
    expect((await applicable).ok()).toBe(true);
    await fill(form(page), '白细胞', '8.2');
    // Before the first save the form already flags by the site range its save would use (site, sex, age, date).
    const mark = form(page).locator('.crf-range-high');
    await mark.waitFor();
    expect(await mark.textContent()).toBe('↑ 偏高');
    expect(await form(page).getByLabel('白细胞', { exact: true }).inputValue()).toBe('8.2');
    const saved = page.waitForResponse(
      (r) => r.url().includes('/api/v3/business/crf') && r.request().method() === 'PUT',
    );
    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).click();
    const envelope = (await (await saved).json()) as { code: number; msg?: string };
    expect(envelope, JSON.stringify(envelope)).toMatchObject({ code: 200 });
    // Once saved, the page flags by the range the save stored with the record.
    await mark.waitFor();
    expect(await mark.textContent()).toBe('↑ 偏高');
    // The page re-renders the form with the record the save answered, which can close a tooltip opened meanwhile:
    // hover again until the tooltip stands.
    const tip = page.getByRole('tooltip').getByText(/参考范围：3\.5 ~ 6/);
    for (let attempt = 1; ; attempt++) {
      await page.mouse.move(0, 0);
      await mark.hover();
      try {
        await tip.waitFor({ timeout: 5_000 });
        break;
      } catch (error) {
        if (attempt === 6) throw error;
      }
    }
    await screenshot(page, 'lab-ranges-site-flag');
  });
});
