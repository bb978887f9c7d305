import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { addStudyMember, callApi, prepareAdmin, signInAs } from './api.js';

/**
 * Missing-data codes (缺失原因, issue 37): a site nurse opens 生命体征, marks 收缩压 as 未查(ND) from the item's 缺失
 * menu, fills the rest and submits; the required item is complete. The record reads missing {sbp: 'ND'} and the
 * item's trail records the mark as [缺失:ND].
 */
const NURSE = { userName: '13700000096', name: '缺失护士', password: 'Nurse@2024' };

let platform: Platform;
let browser: Browser;
let admin: string;
let subjectRecordId: number;
let vitals: number;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  let studyId: number;
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const site = (
    await api<{ deptId: number }>('POST', '/api/system/dept', admin, { deptName: '缺失医院', parentId: 1, orderNum: 6 })
  ).deptId;
  const forms = await api<Array<{ id: number; title: string }>>(
    'GET',
    `/api/system/crf/list?studyId=${studyId}`,
    admin,
  );
  vitals = forms.find((f) => f.title === '生命体征')!.id;
  await addStudyMember(
    platform.baseUrl,
    admin,
    studyId,
    NURSE,
    [
      'btn:business.subject.add',
      'btn:business.crf.save',
      'btn:business.crf.submit',
      ...forms.flatMap((f) => [`crf:${f.id}:view`, `crf:${f.id}:save`, `crf:${f.id}:submit`]),
    ],
    [site],
  );
  ({ subjectRecordId } = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', admin, {
    studyId,
    subjectName: '缺失患者',
    gender: 1,
    birth: '1958-09-03',
    diseaseCode: 'LSS',
    deptId: site,
  }));
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const messageText = (page: Page, text: string) => page.locator('.ant-message-notice', { hasText: text }).last();

async function fill(page: Page, label: string, value: string) {
  const input = page.locator('.crf-editor-form').getByLabel(label, { exact: true });
  await input.fill(value);
  await input.blur();
}

describe('missing-data codes (缺失原因) in the browser', () => {
  it('a nurse marks 收缩压 未查(ND), fills the rest and submits; the record and its trail carry the mark', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page, NURSE.userName, NURSE.password);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-menu-form', { hasText: '生命体征' }).click();
    await page.locator('.crf-form-title', { hasText: '生命体征' }).waitFor();

    const sbp = page.locator('.crf-editor-form .crf-col[data-item="sbp"]');
    await sbp.getByTitle('标记缺失 收缩压').click();
    await page.getByRole('menuitem', { name: '未查(ND)' }).click();
    await sbp.locator('.crf-missing-tag', { hasText: '未查(ND)' }).waitFor();
    expect(await sbp.locator('input').count()).toBe(0);
    await page.locator('.crf-editor-actions').getByText('有未保存的修改').waitFor();

    await fill(page, '舒张压', '80');
    await fill(page, '心率', '72');
    await expectAccessible(page, 'crf-missing-marked');
    await screenshot(page, 'crf-missing-marked');

    await page.locator('.crf-editor-actions').getByRole('button', { name: '提交' }).click();
    const confirm = page.getByRole('dialog', { name: '确认提交该表单？' });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: '提交', exact: true }).click();
    await messageText(page, '提交成功').waitFor();
    // The required item marked with a code raised nothing.
    expect(await sbp.locator('.crf-field-error').count()).toBe(0);

    const read = await api<{ crfDataRecord: { id: number; state: number; missing?: Record<string, string> } }>(
      'GET',
      `/api/v3/business/crf/${subjectRecordId}?crfId=${vitals}`,
      admin,
    );
    expect(read.crfDataRecord.state).toBe(2);
    expect(read.crfDataRecord.missing).toEqual({ sbp: 'ND' });

    const trail = await api<Array<{ itemName: string; newValue: unknown }>>(
      'GET',
      `/api/business/crf/audit?crfDataRecordId=${read.crfDataRecord.id}&itemName=sbp`,
      admin,
    );
    expect(trail).toEqual(expect.arrayContaining([expect.objectContaining({ newValue: '[缺失:ND]' })]));
    await page.context().close();
  });
});
