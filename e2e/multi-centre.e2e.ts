import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { addStudyMember, ADMIN_PASSWORD, callApi, prepareAdmin, signInAs } from './api.js';

/** A nurse of 乙医院 who enters every form of the demo study but sees only her own site (no 查看全部中心数据). */
const NURSE_B = { userName: '13700000091', name: '乙院护士', password: 'Nurse@2024' };

let platform: Platform;
let browser: Browser;
let admin: string;
let studyId: number;
let recordA: number;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const site = async (deptName: string) =>
    (await api<{ deptId: number }>('POST', '/api/system/dept', admin, { deptName, parentId: 1, orderNum: 5 })).deptId;
  const siteA = await site('甲医院');
  const siteB = await site('乙医院');
  const forms = await api<Array<{ id: number }>>('GET', `/api/system/crf/list?studyId=${studyId}`, admin);
  await addStudyMember(
    platform.baseUrl,
    admin,
    studyId,
    NURSE_B,
    [
      'btn:business.subject.add',
      'btn:business.subject.identifiers',
      'btn:business.crf.save',
      ...forms.flatMap((f) => [`crf:${f.id}:view`, `crf:${f.id}:save`]),
    ],
    [siteB],
  );
  const enrol = (subjectName: string, deptId: number) =>
    api<{ subjectRecordId: number }>('POST', '/api/business/subject', admin, {
      studyId,
      subjectName,
      gender: 1,
      birth: '1961-04-12',
      diseaseCode: 'LSS',
      deptId,
    });
  recordA = (await enrol('甲院患者', siteA)).subjectRecordId;
  await enrol('乙院患者', siteB);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('sites and locks in the browser', () => {
  it('a site-B nurse lists only her site’s patient, and site A’s casebook answers 患者不存在', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page, NURSE_B.userName, NURSE_B.password);
    await page.goto(`/project/${studyId}/subject`);
    await page.getByText('乙院患者').first().waitFor();
    expect(await page.getByText('甲院患者').count()).toBe(0);
    await screenshot(page, 'site-scoped-list');
    await expectAccessible(page, 'site-scoped-list');

    await page.goto(`/crf/${recordA}`);
    await page.locator('.ant-message-notice', { hasText: '患者不存在' }).first().waitFor();
    expect(await page.content()).not.toContain('甲院患者');
    await page.close();
  });

  it('the manager locks a casebook on the CRF page: 🔒 with who, when and why, the form read-only, the list marked, lifted in 数据锁定', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page, '13800000000', ADMIN_PASSWORD);
    await page.goto(`/crf/${recordA}`);
    await page.locator('.crf-menu-form', { hasText: '生命体征' }).click();
    await page.locator('.crf-form-title', { hasText: '生命体征' }).waitFor();
    await page.getByRole('button', { name: '锁定病例' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('原因').fill('SDV完成，病例核查完毕');
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const bar = page.locator('.crf-lock-bar');
    await bar.waitFor();
    expect(await bar.textContent()).toMatch(/该病例已锁定（.+ \d{4}-\d{2}-\d{2}），如需修改请先解锁/);
    expect(await bar.textContent()).toContain('原因：SDV完成，病例核查完毕');
    // What the lock takes away is shown disabled with its words: 保存, 提交, 签名, 质疑.
    const actions = page.locator('.crf-editor-actions');
    for (const name of [/保\s*存/, /提\s*交/]) {
      const button = actions.getByRole('button', { name });
      await button.waitFor();
      expect(await button.isDisabled()).toBe(true);
    }
    for (const name of [/签\s*名/, /质\s*疑/]) {
      expect(await page.locator('.crf-bar-button').filter({ hasText: name }).first().isDisabled()).toBe(true);
    }
    await actions.locator('.crf-locked-action').first().hover();
    await page.locator('.ant-tooltip', { hasText: /该病例已锁定/ }).waitFor();
    await screenshot(page, 'casebook-locked');
    await expectAccessible(page, 'casebook-locked');

    await page.goto(`/project/${studyId}/subject`);
    await page
      .getByRole('img', { name: /该病例已锁定/ })
      .first()
      .waitFor();
    await screenshot(page, 'patient-list-locked');

    await page.goto(`/study/config?studyId=${studyId}`);
    await page.getByRole('tab', { name: '数据锁定' }).click();
    const row = page.getByRole('row').filter({ hasText: 'SDV完成，病例核查完毕' });
    await row.waitFor();
    expect(await row.textContent()).toContain('病例锁定');
    await screenshot(page, 'locks-panel');
    await expectAccessible(page, 'locks-panel');
    await row.getByRole('button', { name: '解锁' }).click();
    const unlock = page.getByRole('dialog');
    await unlock.getByLabel('原因').fill('补录随访数据');
    await unlock.getByRole('button', { name: '确定' }).click();
    await page.getByText('当前没有锁定').waitFor();
    await page.close();
  });
});
