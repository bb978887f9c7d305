import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { MessageRules } from '@ecrf/core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';

/**
 * 患者提醒 (issue 38) in the browser: the data manager turns reminders on in 项目配置 · 患者提醒 (微信公众号, 5 days
 * before the window, their own 问卷邀请 wording), saves, and reads the delivery report in 随访管理 · 患者提醒.
 */

let platform: Platform;
let browser: Browser;
let page: Page;
let admin: string;
let studyId: number;

const api = <T>(method: string, path: string, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, admin, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  page = await newPage(browser, platform.baseUrl);
  await signInAs(page);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('患者提醒 in the browser', () => {
  it('rules saved in 项目配置 · 患者提醒 are the study’s; 随访管理 · 患者提醒 shows the delivery report', async () => {
    await page.goto(`/study/config?studyId=${studyId}`);
    await page.getByRole('tab', { name: '患者提醒' }).click();
    const enabled = page.getByRole('switch', { name: '启用' });
    await enabled.waitFor();
    if ((await enabled.getAttribute('aria-checked')) !== 'true') await enabled.click();
    await page.getByLabel('微信公众号').check();
    const days = page.getByLabel('窗口前提醒天数');
    await days.fill('5');
    await days.blur();
    await page.getByLabel('问卷邀请模板').fill('{patient}您好，请填写《{form}》：{link}');
    // The preview renders the wording with sample values as it is typed.
    expect(await page.getByLabel('问卷邀请预览').textContent()).toContain('张*您好，请填写《生活质量问卷》');
    await screenshot(page, 'message-rules-panel');
    await expectAccessible(page, 'message-rules-panel');

    const saved = page.waitForResponse(
      (r) => r.url().includes('/api/business/messages/rules') && r.request().method() === 'PUT',
    );
    await page.getByRole('button', { name: /保\s*存/ }).click();
    const envelope = (await (await saved).json()) as { code: number; msg?: string };
    expect(envelope, JSON.stringify(envelope)).toMatchObject({ code: 200 });
    await page.getByText('保存成功').first().waitFor();

    const rules = await api<MessageRules>('GET', `/api/business/messages/rules?studyId=${studyId}`);
    expect(rules).toMatchObject({
      enabled: true,
      channel: 'wechat',
      daysBefore: 5,
      templates: { pro_invite: '{patient}您好，请填写《{form}》：{link}' },
    });

    await page.goto(`/project/${studyId}/follow`);
    const report = page.waitForResponse((r) => r.url().includes('/api/business/messages/report'));
    await page.getByRole('tab', { name: '患者提醒' }).click();
    expect((await report).ok()).toBe(true);
    for (const card of ['消息总数', '已送达', '发送失败', '未发送', '已退订']) {
      await page.getByRole('group', { name: card }).waitFor();
    }
    await page.getByRole('table', { name: '消息列表' }).waitFor();
    await screenshot(page, 'messages-report');
    await expectAccessible(page, 'messages-report');
  });
});
