import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { addStudyMember, callApi, prepareAdmin, signInAs } from './api.js';

/** A research nurse who fills 人口学资料 but may not see the patients' identifiers (no 查看患者身份信息). */
const NURSE = { userName: '13700000081', name: '吴护士', password: 'Nurse@2024' };

let platform: Platform;
let browser: Browser;
let admin: string;
let subjectRecordId: number;
let demographics: number;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  let studyId: number;
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const patient = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', admin, {
    studyId,
    subjectName: '郑淑芬',
    gender: 0,
    birth: '1957-09-23',
    diseaseCode: 'LSS',
  });
  subjectRecordId = patient.subjectRecordId;
  const forms = await api<Array<{ id: number; title: string }>>(
    'GET',
    `/api/system/crf/list?studyId=${studyId}`,
    admin,
  );
  demographics = forms.find((f) => f.title === '人口学资料')!.id;
  await api('PUT', '/api/v3/business/crf', admin, {
    subjectRecordId,
    crfId: demographics,
    version: 0,
    values: { sex: '2', birth: '1957-09-23', height: 158 },
  });
  await addStudyMember(platform.baseUrl, admin, studyId, NURSE, [
    'btn:business.crf.save',
    `crf:${demographics}:view`,
    `crf:${demographics}:save`,
  ]);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('identifiers on the CRF page', () => {
  it('a nurse without 查看患者身份信息 sees 出生日期 as ****** and read-only; her save of another item keeps the stored date', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page, NURSE.userName, NURSE.password);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-menu-form', { hasText: '人口学资料' }).click();
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    const form = page.locator('.crf-editor-form');
    const birth = form.getByLabel('出生日期', { exact: true });
    await birth.waitFor();
    expect(await birth.inputValue()).toBe('******');
    expect(await birth.isDisabled()).toBe(true);
    expect(await birth.getAttribute('title')).toBe('身份标识已隐藏（需要“查看患者身份信息”权限）');
    // The age calculated from the date is no identifier: it shows, kept as stored.
    expect(await form.getByLabel('年龄', { exact: true }).inputValue()).toMatch(/^\d+$/);
    expect(await page.content()).not.toContain('1957-09-23');
    await screenshot(page, 'identifier-masked');
    await expectAccessible(page, 'identifier-masked');

    const height = form.getByLabel('身高', { exact: true });
    await height.fill('159');
    await height.blur();
    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).click();
    await page.locator('.ant-message-notice', { hasText: '保存成功' }).last().waitFor();

    const stored = await api<{ crfDataRecord: { values: Record<string, unknown> } }>(
      'GET',
      `/api/v3/business/crf/${subjectRecordId}?crfId=${demographics}`,
      admin,
    );
    expect(stored.crfDataRecord.values).toMatchObject({ birth: '1957-09-23', height: '159' });
    await page.close();
  });
});
