import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';
import { cutTableCells } from './tables.js';

/**
 * 不良事件 (issue 37) in the browser: the administrator turns the AE module on in 项目配置; a serious adverse event
 * saved in the AE log starts the 24-hour clock; the 不良事件 page lists the SAE report with the time left and the
 * top bar counts it; 提交报告 sends it.
 */

let platform: Platform;
let browser: Browser;
let page: Page;
let admin: string;
let studyId: number;

const api = <T>(method: string, path: string, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, admin, body);

/** The study zone's wall clock `yyyy-MM-dd HH:mm`, as the AE log's datetime item stores it. */
function wallClock(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

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

describe('不良事件 in the browser', () => {
  it('the module turned on in 项目配置, a serious AE is listed with its 24-hour clock and 提交报告 sends it', async () => {
    await page.goto(`/study/config?studyId=${studyId}`);
    await page.getByRole('tab', { name: '不良事件' }).click();
    const toggle = page.getByRole('switch', { name: '开启不良事件模块' });
    await toggle.waitFor();
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    await toggle.click();
    await page.locator('.ant-message-notice', { hasText: '不良事件模块已开启' }).waitFor();
    // The module made the AE log form; the panel names it.
    await page.locator('.ant-descriptions-item-content', { hasText: '不良事件记录' }).waitFor();
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await screenshot(page, 'safety-module');
    await expectAccessible(page, 'safety-module');

    const module = await api<{ enabled: boolean; aeCrfId: number }>(
      'GET',
      `/api/business/safety/module?studyId=${studyId}`,
    );
    expect(module.enabled).toBe(true);
    const study = await api<{ timeZone: string }>('GET', `/api/business/study/${studyId}`);
    const patient = await api<{ subjectRecordId: number; identificationCode: string }>(
      'POST',
      '/api/business/subject',
      {
        studyId,
        subjectName: '不良事件患者',
        gender: 1,
        birth: '1958-03-02',
        diseaseCode: 'LSS',
      },
    );
    // Aware five minutes ago: the clock reads 剩余 23小时5x分.
    const awareAt = new Date(Date.now() - 5 * 60_000);
    await api('PUT', '/api/v3/business/crf', {
      subjectRecordId: patient.subjectRecordId,
      crfId: module.aeCrfId,
      version: 0,
      values: {
        ae_term: '重症肺炎',
        ae_start: wallClock(awareAt, study.timeZone).slice(0, 10),
        ae_grade: '3',
        ae_serious: '1',
        ae_criteria: ['hosp'],
        ae_aware: wallClock(awareAt, study.timeZone),
        ae_causality: 'possible',
      },
    });
    // The report is made after the save (the outbox's subscriber).
    await expect
      .poll(
        async () =>
          (
            await api<{ total: number }>(
              'GET',
              `/api/business/safety/saes?studyId=${studyId}&state=pending&pageNum=1&pageSize=10`,
            )
          ).total,
      )
      .toBe(1);

    await page.goto(`/project/${studyId}/safety`);
    await page.locator('.page-title', { hasText: '不良事件' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: patient.identificationCode });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/剩余 23小时\d+分/);
    expect(await row.textContent()).toContain('重症肺炎');
    expect(await row.textContent()).toContain('v1 首次报告');
    expect(await row.textContent()).toContain('待提交');
    // The top bar counts the pending report for a holder of 安全性报告 (the administrator holds every key).
    await page.getByRole('button', { name: '待提交SAE报告 1 份' }).waitFor();
    await screenshot(page, 'safety-list');
    await expectAccessible(page, 'safety-list');
    for (const width of [1366, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await row.waitFor();
      // Nothing cut at the edge or hidden behind the fixed 操作 column.
      await expect.poll(() => cutTableCells(page)).toEqual([]);
    }

    await row.getByRole('button', { name: '提交报告' }).click();
    await page.locator('.ant-popconfirm', { hasText: '确认提交该SAE报告？' }).waitFor();
    await page
      .locator('.ant-popconfirm')
      .getByRole('button', { name: /确\s*定|OK/ })
      .click();
    await page.locator('.ant-message-notice', { hasText: '报告已提交' }).waitFor();
    await expect.poll(async () => row.textContent()).toContain('已提交');
    expect(await row.textContent()).toContain('已按时提交');
    await row.getByRole('button', { name: '随访报告' }).waitFor();
    await page.getByRole('button', { name: '待提交SAE报告 1 份' }).waitFor({ state: 'detached' });
    await screenshot(page, 'safety-submitted');

    // 导出Word: the NMPA 严重不良事件报告表 of the submitted version, saved under the name the server gives.
    const download = page.waitForEvent('download');
    await row.getByRole('button', { name: '导出' }).click();
    await page.getByRole('menuitem', { name: '导出Word' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toMatch(/^严重不良事件报告表-.+-v1\.docx$/);
    expect(await saved.failure()).toBeNull();
  });
});
