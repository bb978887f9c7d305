import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { ADMIN_PASSWORD, addStudyMember, callApi, prepareAdmin, signInAs, type Person } from './api.js';
import { pickMore } from './tables.js';
import {
  ADMIN,
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  settle,
  startPlatform,
  type Platform,
} from './harness.js';

/**
 * The patient side: staff set the study's patient-reported form, a nurse issues a binding code on 公众号用户,
 * the patient binds with it on a phone (390×844), fills and submits the form, and the nurse reads the values
 * and 患者填写 in the patient's 操作记录.
 */

const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const NURSE: Person = { userName: '13600000191', name: '李护士', password: 'Nurse@2024' };

let platform: Platform;
let browser: Browser;
let studyId: number;
let adminToken: string;
let vitalsId: number;
let patientCode: string;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: adminToken, studyId } = await prepareAdmin(platform.baseUrl));
  const crfs = await api<Array<{ id: number; title: string }>>(
    'GET',
    `/api/system/crf/list?studyId=${studyId}`,
    adminToken,
  );
  vitalsId = crfs.find((c) => c.title === '生命体征')!.id;
  const patient = await api<{ identificationCode: string }>('POST', '/api/business/subject', adminToken, {
    studyId,
    subjectName: '赵六',
    gender: 1,
    birth: '1962-05-01',
    diseaseCode: 'LSS',
  });
  patientCode = patient.identificationCode;
  await addStudyMember(platform.baseUrl, adminToken, studyId, NURSE, [
    'btn:business.subject.edit',
    `crf:${vitalsId}:view`,
  ]);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function phone(): Promise<Page> {
  const context = await browser.newContext({ baseURL: platform.baseUrl, locale: 'zh-CN', ...PHONE });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  onTestFailed(async ({ task }) => {
    if (!page.isClosed()) {
      await screenshot(page, `failed-${task.name.slice(0, 40).replace(/[^\w\u4e00-\u9fff-]+/g, '_')}`);
    }
  });
  return page;
}

describe('patient side', () => {
  it('KNOW-03: the study marks 生命体征 as patient-reported on 公众号 and writes the disease education on 公众号病种', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page, ADMIN, ADMIN_PASSWORD);
    await page.goto(`/project/${studyId}/weChat`);
    await page.getByRole('img', { name: '患者绑定二维码' }).waitFor();
    await expect
      .poll(async () => (await page.getByTestId('bind-url').textContent()) ?? '')
      .toContain(`/meil/bind?studyId=${studyId}`);
    await page.getByRole('checkbox', { name: '生命体征' }).check();
    await page.getByLabel('患者首页欢迎语').fill('感谢您参加本研究，请按时填写表单。');
    await page.getByRole('button', { name: /保\s*存/ }).click();
    await page.locator('.ant-message-notice', { hasText: '保存成功' }).waitFor();
    await settle(page);
    await screenshot(page, 'patient-portal-wechat');
    await expectAccessible(page, 'patient-portal-wechat');

    await page.goto(`/project/${studyId}/wechat/disease`);
    const row = page.getByRole('row').filter({ hasText: 'LSS' });
    await row.getByRole('button', { name: '编辑' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('标题').fill('术后康复须知');
    await dialog.getByLabel('内容').fill('术后三个月内避免弯腰搬重物。');
    await settle(page);
    await dialog.getByRole('button', { name: /确\s*定|OK/ }).click();
    await row.filter({ hasText: '术后康复须知' }).waitFor();
    await settle(page);
    await screenshot(page, 'patient-portal-disease');
    await expectAccessible(page, 'patient-portal-disease');
    await page.context().close();
  });

  it('KNOW-03: a nurse issues a code on 公众号用户; the patient binds with it on a 390 px phone, fills and submits 生命体征; the nurse sees the values and 患者填写', async () => {
    // The nurse issues the code.
    const nurse = await newPage(browser, platform.baseUrl);
    await signInAs(nurse, NURSE.userName, NURSE.password);
    await nurse.goto('/project/wxuser');
    const row = nurse.getByRole('row').filter({ hasText: patientCode });
    await row.waitFor();
    expect(await row.textContent()).toContain('未绑定');
    await row.getByRole('button', { name: '发放绑定码' }).click();
    const codeBox = nurse.getByTestId('bind-code');
    await codeBox.waitFor();
    const code = ((await codeBox.textContent()) ?? '').trim();
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    await settle(nurse);
    await screenshot(nurse, 'patient-portal-code');
    await expectAccessible(nurse, 'patient-portal-code');
    await nurse
      .getByRole('dialog')
      .locator('.ant-modal-footer')
      .getByRole('button', { name: /关\s*闭/ })
      .click();

    // The patient binds on the phone through the page the study's QR code opens.
    const patient = await phone();
    await patient.goto(`/meil/bind?studyId=${studyId}`);
    await patient.getByLabel('绑定码').fill(code.toLowerCase());
    await patient.getByRole('button', { name: /绑\s*定/ }).tap();
    // The study's name is told once the code has bound (the bind page names no study).
    await patient.getByRole('heading', { name: '腰椎管狭窄症手术登记研究（示例）' }).waitFor();
    await patient.getByText('术后康复须知').waitFor();
    await patient.getByText('感谢您参加本研究，请按时填写表单。').waitFor();
    const formLink = patient.getByRole('link', { name: /生命体征/ });
    await expect.poll(async () => (await formLink.textContent()) ?? '').toContain('待填写');
    await patient.getByRole('link', { name: '健康知识' }).waitFor();
    await settle(patient);
    await screenshot(patient, 'patient-portal-390-home');
    await expectAccessible(patient, 'patient-portal-390-home');
    const linkBox = await formLink.boundingBox();
    expect(linkBox!.height).toBeGreaterThanOrEqual(48);

    await formLink.tap();
    await patient.getByRole('heading', { name: '生命体征' }).first().waitFor();
    const sbp = patient.getByLabel('收缩压', { exact: true });
    await sbp.fill('132');
    await sbp.blur();
    const dbp = patient.getByLabel('舒张压', { exact: true });
    await dbp.fill('84');
    await dbp.blur();
    // No sideways scroll on the phone.
    expect(await patient.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await settle(patient);
    await screenshot(patient, 'patient-portal-390-form');
    await patient.getByRole('button', { name: /提\s*交/ }).tap();
    await expect.poll(async () => (await formLink.textContent().catch(() => '')) ?? '').toContain('已提交');
    await settle(patient);
    await screenshot(patient, 'patient-portal-390-submitted');

    // The nurse sees the patient as bound, and 患者填写 with the values in the patient's 操作记录.
    await nurse.reload();
    await expect.poll(async () => (await row.textContent()) ?? '').toContain('已绑定');
    await nurse.goto(`/project/${studyId}/subject`);
    const patientRow = nurse.locator('.keep-alive-page:visible').getByRole('row').filter({ hasText: patientCode });
    await patientRow.waitFor();
    const direct = patientRow.getByRole('button', { name: '操作记录' });
    if ((await direct.count()) > 0) await direct.click();
    else await pickMore(nurse, patientRow, '操作记录');
    const drawer = nurse.locator('.ant-drawer');
    const saved = drawer.getByRole('row').filter({ hasText: '患者填写' }).filter({ hasText: '132' });
    await saved.first().waitFor();
    await drawer.getByRole('row').filter({ hasText: '患者填写' }).filter({ hasText: '提交' }).first().waitFor();
    await settle(nurse);
    await screenshot(nurse, 'patient-portal-nurse-trail');
    await nurse.context().close();
    await patient.context().close();
  });
});
