import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { addStudyMember, callApi, prepareAdmin, signInAs } from './api.js';

/**
 * Field comments (批注, issue 37): a site nurse opens a saved form, adds a 批注 to an item from the item list and sees
 * it listed with her name; the trail (修改历史) reads it as 添加批注.
 */
const NURSE = { userName: '13700000095', name: '批注护士', password: 'Nurse@2024' };
const NOTE = '来源：门诊病历 2026-11-20';

let platform: Platform;
let browser: Browser;
let admin: string;
let subjectRecordId: number;
let crfDataRecordId: number;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  let studyId: number;
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const site = (
    await api<{ deptId: number }>('POST', '/api/system/dept', admin, { deptName: '批注医院', parentId: 1, orderNum: 5 })
  ).deptId;
  const forms = await api<Array<{ id: number; title: string }>>(
    'GET',
    `/api/system/crf/list?studyId=${studyId}`,
    admin,
  );
  await addStudyMember(
    platform.baseUrl,
    admin,
    studyId,
    NURSE,
    [
      'btn:business.subject.add',
      'btn:business.crf.save',
      ...forms.flatMap((f) => [`crf:${f.id}:view`, `crf:${f.id}:save`]),
    ],
    [site],
  );
  ({ subjectRecordId } = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', admin, {
    studyId,
    subjectName: '批注患者',
    gender: 1,
    birth: '1961-04-12',
    diseaseCode: 'LSS',
    deptId: site,
  }));
  // A comment needs a saved record: the vital signs are entered first.
  const vitals = forms.find((f) => f.title === '生命体征')!.id;
  crfDataRecordId = (
    await api<{ crfDataRecordId: number }>('PUT', '/api/v3/business/crf', admin, {
      subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { sbp: '120', dbp: '80', hr: '72' },
    })
  ).crfDataRecordId;
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const messageText = (page: Page, text: string) => page.locator('.ant-message-notice', { hasText: text }).last();

describe('field comments (批注) in the browser', () => {
  it('a nurse opens a form, adds a 批注 to an item and sees it listed with her name; the item list counts it', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page, NURSE.userName, NURSE.password);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-menu-form', { hasText: '生命体征' }).click();
    await page.locator('.crf-form-title', { hasText: '生命体征' }).waitFor();

    const row = page.locator('.crf-item-panel .crf-item-row[data-item="hr"]');
    await row.getByRole('button', { name: '批注 心率' }).click();
    const drawer = page.locator('.ant-drawer', { hasText: '批注：心率' });
    await drawer.getByText('暂无批注').waitFor();

    await drawer.getByRole('button', { name: '添加批注' }).click();
    await drawer.getByRole('alert').filter({ hasText: '请输入批注内容' }).waitFor();
    await drawer.getByLabel('请输入批注内容').fill(`  ${NOTE}  `);
    await drawer.getByRole('button', { name: '添加批注' }).click();
    await messageText(page, '批注已添加').waitFor();
    const listed = drawer.locator('.crf-comment', { hasText: NOTE });
    await listed.waitFor();
    expect(await listed.locator('.crf-comment-author').textContent()).toBe(`${NURSE.name}(${NURSE.userName})`);
    expect(await drawer.locator('.crf-comment').count()).toBe(1);
    await expectAccessible(page, 'item-comments');
    await screenshot(page, 'item-comments');

    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    expect(await row.locator('.ant-badge').textContent()).toContain('1');

    // The comment is an audit row of the item, read as 添加批注 in its history.
    const history = await api<Array<{ actionName: string; newText: string }>>(
      'GET',
      `/api/business/crf/audit?crfDataRecordId=${crfDataRecordId}&itemName=hr`,
      admin,
    );
    expect(history).toEqual(
      expect.arrayContaining([expect.objectContaining({ actionName: '添加批注', newText: NOTE })]),
    );
    await page.context().close();
  });
});
