import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';

/**
 * 数据核查 (issue 37) in the browser: the data manager runs the study's checks over stored records from the 质疑列表
 * page's 数据核查 tab, reads the findings per rule, drills down to the patient, raises one query per finding in
 * batch, and sees them counted on the quality dashboard.
 */

let platform: Platform;
let browser: Browser;
let page: Page;
let admin: string;
let studyId: number;
let identificationCode: string;

const api = <T>(method: string, path: string, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, admin, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const forms = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`);
  const patient = await api<{ subjectRecordId: number; identificationCode: string }>('POST', '/api/business/subject', {
    studyId,
    subjectName: '核查患者',
    gender: 1,
    birth: '1962-08-15',
    diseaseCode: 'LSS',
  });
  identificationCode = patient.identificationCode;
  // Saved (not submitted) without 收缩压 and 舒张压, both required: two findings of the rule 必填项未填写.
  await api('PUT', '/api/v3/business/crf', {
    subjectRecordId: patient.subjectRecordId,
    crfId: forms.find((f) => f.title === '生命体征')!.id,
    version: 0,
    values: { hr: '72' },
  });
  page = await newPage(browser, platform.baseUrl);
  await signInAs(page);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('数据核查 in the browser', () => {
  it('a run finds the missing required items, drills down to the patient and raises one query per finding', async () => {
    await page.goto(`/project/${studyId}/doubtList`);
    await page.getByRole('tab', { name: '数据核查' }).click();
    await page.getByText('暂无核查记录，请选择范围后开始核查').waitFor();
    await page.getByRole('button', { name: '开始核查' }).click();
    // The run is a job on the queue; on a loaded two-core machine it may take longer than a click's wait.
    const summary = page.getByTestId('quality-summary');
    await summary.waitFor({ timeout: 90_000 });
    expect(await summary.textContent()).toMatch(/已核查表单记录 \d+ 份，发现问题 \d+ 条/);

    const rules = page.getByTestId('quality-rules');
    const required = rules.getByRole('row').filter({ hasText: '必填项未填写' });
    await required.waitFor();
    await required.getByRole('button', { name: '查看明细' }).click();
    // The drill-down card is the one titled by the rule (the dashboard below names the rule too).
    const drill = page
      .locator('.ant-card')
      .filter({ has: page.locator('.ant-card-head', { hasText: '必填项未填写' }) });
    await drill.getByRole('row').filter({ hasText: identificationCode }).first().waitFor();
    expect(await drill.getByRole('row').filter({ hasText: identificationCode }).count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'quality-run');
    await expectAccessible(page, 'quality-run');

    await required.getByRole('button', { name: '批量发起质疑' }).click();
    await page
      .locator('.ant-popconfirm')
      .getByRole('button', { name: /确\s*定|OK/ })
      .click();
    // The rows' state is waited on, not the message: a notice lasts three seconds, a loaded machine may miss it.
    await expect
      .poll(async () => drill.getByRole('row').filter({ hasText: '已发起质疑' }).count(), { timeout: 60_000 })
      .toBeGreaterThanOrEqual(2);

    // The queries are in the study's query list, each with the rule's text.
    const doubts = await api<{ list: Array<{ doubtDescription: string; identificationCode?: string }> }>(
      'GET',
      `/api/business/doubts?studyId=${studyId}&pageNum=1&pageSize=50`,
    );
    const raised = doubts.list.filter((d) => d.identificationCode === identificationCode);
    expect(raised.length).toBeGreaterThanOrEqual(2);
    expect(raised.every((d) => d.doubtDescription.includes('必填项未填写'))).toBe(true);
    await page.getByTestId('quality-dashboard').waitFor();
    await screenshot(page, 'quality-dashboard');
  });
});
