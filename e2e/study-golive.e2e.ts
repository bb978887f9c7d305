import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
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

/**
 * 测试 / 上线 (issue 36, docs/lifecycle.md): a new study starts in 测试; its name, its patients and its exports are
 * marked 测试; 上线 from 项目配置 names what it purges, asks for the study's code and a reason, and leaves the study
 * 已上线 without its test patients.
 */

const STUDY_NAME = '颈椎病随访研究（上线演练）';
const STUDY_CODE = 'CSM-GOLIVE';
const NOTICE = '测试数据：本文件含测试数据，不得用于分析';

const VITALS = {
  title: '基线体征',
  option: { cols: 2 },
  children: [
    { name: 'sbp', title: '收缩压', type: 'int', option: {}, children: [] },
    { name: 'remark', title: '备注', type: 'input', option: {}, children: [] },
  ],
};

let platform: Platform;
let browser: Browser;
let page: Page;
let token: string;
let studyId: number;
let patientCode: string;

const api = <T>(method: string, urlPath: string, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, urlPath, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token } = await prepareAdmin(platform.baseUrl));
  // A new study, set up through the API as its designer would: a disease, a form in a stage, one patient.
  const created = await api<{ id: number; mode: string }>('POST', '/api/business/study', {
    studyName: STUDY_NAME,
    studyCode: STUDY_CODE,
    diseases: [{ diseaseName: '脊髓型颈椎病', diseaseCode: 'CSM' }],
  });
  studyId = created.id;
  await api('POST', '/api/system/crf', { studyId, definition: VITALS });
  const crfs = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`);
  const crfId = crfs.find((c) => c.title === VITALS.title)!.id;
  const stage = await api<{ id: number }>('POST', '/api/business/crf_menu/crf_stage', { studyId, name: '基线' });
  await api('POST', '/api/business/crf_menu/crf_stage/crf/import', {
    crfStageId: stage.id,
    crfIds: [crfId],
    repeat: 1,
  });
  const patient = await api<{ subjectRecordId: number; identificationCode: string }>('POST', '/api/business/subject', {
    studyId,
    subjectName: '孙演练',
    identificationCode: 'SY-001',
    gender: 1,
    birth: '1965-04-12',
    diseaseCode: 'CSM',
  });
  patientCode = patient.identificationCode ?? 'SY-001';
  await api('PUT', '/api/v3/business/crf', {
    subjectRecordId: patient.subjectRecordId,
    crfId,
    version: 0,
    values: { sbp: 132, remark: '培训录入' },
  });
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const patientRow = () => page.locator('.keep-alive-page:visible').getByRole('row').filter({ hasText: patientCode });

describe('测试 and 上线', () => {
  it('a new study starts in 测试: the study card, the top bar and its patient carry the 测试 tag', async () => {
    page = await newPage(browser, platform.baseUrl);
    onTestFailed(async () => {
      if (!page.isClosed()) await screenshot(page, 'golive-failed');
    });
    const detail = await api<{ mode: string; wentLiveAt: string | null }>('GET', `/api/business/study/${studyId}`);
    expect(detail).toMatchObject({ mode: 'test', wentLiveAt: null });

    await signInAs(page);
    const card = page.locator('.study-card', { hasText: STUDY_NAME });
    await card.waitFor();
    await card.locator('.test-data-tag', { hasText: '测试' }).waitFor();
    await card.click();
    await page.waitForURL(`**/project/${studyId}/home`);
    await page.locator('.top-bar .test-data-tag', { hasText: '测试' }).waitFor();

    await page.goto(`/project/${studyId}/subject`);
    await patientRow().waitFor();
    await patientRow().locator('.test-data-tag', { hasText: '测试' }).waitFor();
    await settle(page);
    await screenshot(page, 'golive-test-patient');
    await expectAccessible(page, 'golive-test-patient');
  });

  it('an export made in 测试 is named 测试数据_… and its first row says 测试数据', async () => {
    await page.goto(`/project/${studyId}/retrieval`);
    await page.getByRole('heading', { name: '数据检索' }).waitFor();
    await page.getByRole('button', { name: '导出', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: '导出数据' });
    await dialog.waitFor();
    await dialog.getByRole('radio', { name: /^CSV 宽表/ }).check();
    await dialog.getByRole('button', { name: '开始导出' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const drawer = page.locator('.jobs-drawer');
    await drawer.waitFor();
    const row = drawer.locator('.jobs-drawer-item', { hasText: '数据导出' }).first();
    await row.locator('.ant-tag', { hasText: '已完成' }).waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: '下载' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^测试数据_.+_数据导出_\d{14}\.csv$/);
    const lines = fs
      .readFileSync((await download.path())!, 'utf8')
      .replace(/^\uFEFF/, '')
      .split('\r\n');
    expect(lines[0]).toBe(NOTICE);
    expect(lines[1]).toMatch(/^subject_code,/);
    expect(lines.slice(2).some((l) => l.startsWith(`${patientCode},`))).toBe(true);

    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: '导出记录' }).click();
    const log = page.locator('.ant-drawer', { hasText: '导出记录' });
    await log.locator('.ant-table-tbody tr.ant-table-row').first().locator('.test-data-tag').waitFor();
    await log.locator('.ant-drawer-close').click();
  });

  it('上线 names what it purges, asks for the study code and a reason; then the study is 已上线 and the test patient gone', async () => {
    await page.goto(`/study/config?studyId=${studyId}`);
    await page.getByRole('tab', { name: '测试与上线' }).click();
    await page.getByRole('button', { name: '上线', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `上线：${STUDY_NAME}` });
    await dialog.waitFor();
    const counts = dialog.getByTestId('golive-counts');
    await counts.waitFor();
    expect(await counts.textContent()).toMatch(
      /^测试患者 1 例、表单记录 1 份、质疑 \d+ 条、随机 0 例、随访 \d+ 次、文件 \d+ 个、稽查记录 \d+ 条$/,
    );
    await settle(page);
    await screenshot(page, 'golive-dialog');
    await expectAccessible(page, 'golive-dialog');

    // A wrong code is refused on the page; nothing is purged.
    await dialog.getByLabel('项目编号', { exact: true }).fill('CSM');
    await dialog.getByLabel('上线原因').fill('用户验收测试完成，表单已确认');
    await dialog.getByRole('button', { name: '确认上线' }).click();
    await dialog.getByText('项目编号不一致').waitFor();
    await dialog.getByLabel('项目编号', { exact: true }).fill(STUDY_CODE);
    await dialog.getByRole('button', { name: '确认上线' }).click();
    await page.locator('.ant-message-notice', { hasText: '上线成功' }).waitFor();
    await dialog.waitFor({ state: 'hidden' });

    const live = page.getByTestId('study-live');
    await live.waitFor();
    expect(await live.textContent()).toMatch(/^已上线（\d{4}-\d{2}-\d{2}）$/);
    expect(await page.getByRole('button', { name: '上线', exact: true }).count()).toBe(0);
    await settle(page);
    await screenshot(page, 'golive-done');

    const detail = await api<{ mode: string; wentLiveAt: string | null }>('GET', `/api/business/study/${studyId}`);
    expect(detail.mode).toBe('production');
    expect(detail.wentLiveAt).not.toBeNull();

    await page.goto(`/project/${studyId}/subject`);
    await page.locator('.page-title:visible', { hasText: '患者列表' }).waitFor();
    await expect.poll(() => patientRow().count()).toBe(0);
    expect(await page.locator('.top-bar .test-data-tag').count()).toBe(0);
    await page.goto('/studyList');
    const card = page.locator('.study-card', { hasText: STUDY_NAME });
    await card.waitFor();
    expect(await card.locator('.test-data-tag').count()).toBe(0);
    await page.close();
  });
});
