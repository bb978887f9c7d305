import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { ADMIN, launchBrowser, newPage, screenshot, settle, platformUnderTest, type Platform } from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';
import { closeMore, openMore } from './tables.js';

let platform: Platform;
let browser: Browser;
let token: string;
let studyId: number;
let subjectRecordId: number;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await platformUnderTest();
  browser = await launchBrowser();
  ({ token, studyId } = await prepareAdmin(platform.baseUrl));
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const signIn = (page: Page) => signInAs(page);

const form = (page: Page) => page.locator('.crf-editor-form');

async function openForm(page: Page, title: string) {
  await page.locator('.crf-menu-form', { hasText: title }).click();
  await page.locator('.crf-form-title', { hasText: title }).waitFor();
}

async function fill(scope: Locator, label: string, value: string) {
  const input = scope.getByLabel(label, { exact: true });
  await input.fill(value);
  await input.blur();
}

describe('clinical feedback', () => {
  it('SUBJ-04: a patient added in the dialog shows 表单进度 0/6, and 人口学资料 opens with the sex and birth date typed there', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/project/${studyId}/subject`);
    await page.locator('.page-title:visible', { hasText: '患者列表' }).waitFor();
    await page.getByRole('button', { name: '添加患者' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('患者姓名').fill('李秀兰');
    await dialog.getByText('女', { exact: true }).click();
    await dialog.getByLabel('出生日期').click();
    await dialog.getByLabel('出生日期').fill('1961-07-09');
    await page.keyboard.press('Enter');
    await dialog.getByLabel('病种').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('腰椎管狭窄症', { exact: true }).click();
    await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'hidden' });
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'detached' });

    const row = page.locator('.keep-alive-page:visible').getByRole('row').filter({ hasText: '李秀兰' });
    await row.waitFor();
    expect(await row.textContent()).toContain('0/6');
    await row.getByText('0/6', { exact: true }).hover();
    await page.getByRole('tooltip').getByText('应填 6 个表单，已提交 0 个').waitFor();
    await screenshot(page, 'feedback-patient-list-progress');

    await row.getByRole('button', { name: '录入' }).click();
    await page.waitForURL(/\/crf\/\d+/);
    subjectRecordId = Number(/\/crf\/(\d+)/.exec(page.url())![1]);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await expect.poll(() => form(page).getByRole('radio', { name: '女' }).isChecked()).toBe(true);
    expect(await form(page).getByLabel('出生日期', { exact: true }).inputValue()).toBe('1961-07-09');
    expect(await form(page).getByLabel('年龄', { exact: true }).inputValue()).toMatch(/^6\d$/);
    await screenshot(page, 'feedback-demographics-prefilled');
    await page.context().close();
  });

  it('VIS-05: 血红蛋白 in g/dL is judged against the range converted to g/dL, and the tooltip says so', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '实验室检查');
    await form(page).getByLabel('血红蛋白单位').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('g/dL', { exact: true }).click();
    await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'hidden' });
    // 12.5 g/dL is 125 g/L: normal for a woman (115–150 g/L).
    await fill(form(page), '血红蛋白', '12.5');
    expect(await form(page).locator('.crf-range').count()).toBe(0);
    await fill(form(page), '血红蛋白', '10.8');
    const mark = form(page).locator('.crf-range-low');
    await mark.waitFor();
    expect(await mark.textContent()).toBe('↓ 偏低');
    await mark.hover();
    await page.getByRole('tooltip').getByText('参考范围：11.5 ~ 15 g/dL').waitFor();
    await settle(page);
    await screenshot(page, 'feedback-hb-in-g-dl');
    await page.context().close();
  });

  it('术后天数 counts from the day of surgery in 手术记录 to the visit', async () => {
    await api('PUT', '/api/v3/business/crf', token, {
      subjectRecordId,
      crfId: (
        await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`, token)
      ).find((c) => c.title === '手术记录')!.id,
      version: 0,
      values: { op_at: '2024-03-01 09:30:00' },
    });
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '术后随访');
    await fill(form(page), '随访日期', '2024-06-01');
    await expect.poll(() => form(page).getByLabel('术后天数', { exact: true }).inputValue()).toBe('92');
    await screenshot(page, 'feedback-days-since-surgery');
    await page.context().close();
  });

  it('SYS-12/SYS-13: 用户管理 offers no 删除 and no status switch on one’s own account', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto('/sys/user');
    await page.locator('.page-title:visible', { hasText: '用户管理' }).waitFor();
    const own = page.locator('.ant-table-row').filter({ hasText: ADMIN });
    await own.waitFor();
    // 删除 would be under 更多, beside 重置密码.
    await (await openMore(page, own, '重置密码')).waitFor();
    expect(await page.locator('.ant-dropdown:visible').getByRole('menuitem', { name: '删除' }).count()).toBe(0);
    await closeMore(page);
    expect(await own.getByRole('switch').isDisabled()).toBe(true);
    await screenshot(page, 'feedback-user-list-own-row');
    await page.context().close();
  });
});
