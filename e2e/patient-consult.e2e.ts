import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { callApi, prepareAdmin } from './api.js';
import { expectAccessible, launchBrowser, screenshot, settle, startPlatform, type Platform } from './harness.js';

/**
 * 在线咨询 on the patient's phone: a patient bound with a code staff issued opens 在线咨询 from the home on a
 * 390 px phone, is stopped by the form's own check, asks a question and sees it 待回复; the study answers it and
 * the patient reads the answer (已回复) after reloading.
 */

let platform: Platform;
let browser: Browser;
let studyId: number;
let adminToken: string;
let bindCode: string;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: adminToken, studyId } = await prepareAdmin(platform.baseUrl));
  const patient = await api<{ id: number }>('POST', '/api/business/subject', adminToken, {
    studyId,
    subjectName: '钱七',
    gender: 0,
    birth: '1970-08-15',
    diseaseCode: 'LSS',
  });
  ({ code: bindCode } = await api<{ code: string }>('POST', '/api/business/wechat/bind-code', adminToken, {
    studyId,
    subjectId: patient.id,
  }));
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function phone(): Promise<Page> {
  const context = await browser.newContext({
    baseURL: platform.baseUrl,
    locale: 'zh-CN',
    viewport: { width: 390, height: 844 },
    hasTouch: true,
    isMobile: true,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  onTestFailed(async ({ task }) => {
    if (!page.isClosed()) {
      await screenshot(page, `failed-${task.name.slice(0, 40).replace(/[^\w\u4e00-\u9fff-]+/g, '_')}`);
    }
  });
  return page;
}

describe('patient consultation', () => {
  it('KNOW-05: the bound patient asks a question on a 390 px phone, sees it 待回复, and reads the answer after staff reply', async () => {
    const patient = await phone();
    await patient.goto(`/meil?studyId=${studyId}&code=${bindCode}`);
    const consultLink = patient.getByRole('link', { name: '在线咨询' });
    await consultLink.waitFor();
    expect((await consultLink.boundingBox())!.height).toBeGreaterThanOrEqual(48);
    await consultLink.tap();
    await patient.getByRole('heading', { name: '在线咨询' }).waitFor();
    await patient.getByText('您还没有提交过咨询').waitFor();

    // The form checks what the server checks: an empty question is refused before the call.
    const submit = patient.getByRole('button', { name: '提交咨询' });
    await patient.getByLabel('标题').fill('术后多久可以开车');
    await submit.tap();
    await patient.getByRole('alert').filter({ hasText: '请输入咨询内容' }).waitFor();

    await patient.getByLabel('问题内容').fill('手术后一个月了，腰不疼了，可以自己开车上班吗？');
    await submit.tap();
    const mine = patient.getByRole('list', { name: '我的咨询' });
    const item = mine.getByRole('listitem', { name: '术后多久可以开车' });
    await item.waitFor();
    await expect.poll(async () => (await item.textContent()) ?? '').toContain('待回复');
    expect(await item.textContent()).toContain('手术后一个月了');
    expect(await patient.getByLabel('标题').inputValue()).toBe('');
    expect((await submit.boundingBox())!.height).toBeGreaterThanOrEqual(48);
    expect(await patient.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await settle(patient);
    await screenshot(patient, 'patient-consult-390-asked');
    await expectAccessible(patient, 'patient-consult-390-asked');

    // The study answers through its own call; the patient reads the answer after reloading.
    const staffList = await api<{ list: Array<{ id: number; title: string }> }>(
      'GET',
      `/api/v1/advisory/manager/list?studyId=${studyId}&pageNum=1&pageSize=20`,
      adminToken,
    );
    const asked = staffList.list.find((c) => c.title === '术后多久可以开车')!;
    await api('PUT', `/api/v1/advisory/manager/${asked.id}/answer`, adminToken, {
      studyId,
      answer: '术后六周内不建议自己开车，复查后听医生意见。',
    });
    await patient.reload();
    await item.waitFor();
    await expect.poll(async () => (await item.textContent()) ?? '').toContain('已回复');
    expect(await item.textContent()).toContain('术后六周内不建议自己开车');
    await settle(patient);
    await screenshot(patient, 'patient-consult-390-answered');
    await patient.context().close();
  });
});
