import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { addStudyMember, callApi, prepareAdmin, signInAs } from './api.js';

/**
 * 双份录入 (issue 37) in the browser: the form 生命体征 is set to double entry on the CRF list; two nurses type it
 * from the same paper CRF, each seeing only their own entry (第一次录入, 第二次录入); the administrator (双录入核对,
 * neither of them) compares the entries side by side, decides each highlighted difference and 确认核对 writes the
 * record, which the form page then shows.
 */
const NURSE1 = { userName: '13700000081', name: '一录护士', password: 'Nurse@2024' };
const NURSE2 = { userName: '13700000082', name: '二录护士', password: 'Nurse@2024' };

let platform: Platform;
let browser: Browser;
let admin: string;
let studyId: number;
let subjectRecordId: number;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const forms = await api<Array<{ id: number; title: string }>>(
    'GET',
    `/api/system/crf/list?studyId=${studyId}`,
    admin,
  );
  const keys = [
    'btn:business.subject.add',
    'btn:business.crf.save',
    ...forms.flatMap((f) => [`crf:${f.id}:view`, `crf:${f.id}:save`]),
  ];
  await addStudyMember(platform.baseUrl, admin, studyId, NURSE1, keys);
  await addStudyMember(platform.baseUrl, admin, studyId, NURSE2, keys);
  ({ subjectRecordId } = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', admin, {
    studyId,
    subjectName: '双录患者',
    gender: 1,
    birth: '1960-03-08',
    diseaseCode: 'LSS',
  }));
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function openVitals(page: Page) {
  await page.goto(`/crf/${subjectRecordId}`);
  await page.locator('.crf-menu-form', { hasText: '生命体征' }).click();
  await page.locator('.crf-form-title', { hasText: '生命体征' }).waitFor();
}

async function enter(person: typeof NURSE1, entryTitle: string, values: Record<string, string>) {
  const page = await newPage(browser, platform.baseUrl);
  await signInAs(page, person.userName, person.password);
  await openVitals(page);
  const panel = page.locator('.double-entry-panel');
  await panel.getByText(entryTitle, { exact: true }).waitFor();
  for (const [label, value] of Object.entries(values)) await panel.getByLabel(label).fill(value);
  const saved = page.waitForResponse(
    (r) => r.url().includes('/api/business/double-entry/entry') && r.request().method() === 'PUT',
  );
  await panel.getByRole('button', { name: '保存录入' }).click();
  expect(((await (await saved).json()) as { code: number }).code).toBe(200);
  await panel.getByRole('button', { name: '完成录入' }).click();
  await page
    .locator('.ant-popconfirm')
    .getByRole('button', { name: /确\s*定|OK/ })
    .click();
  await panel.getByText('本次录入已完成，等待核对').first().waitFor();
  return page;
}

describe('双份录入 in the browser', () => {
  it('the CRF list sets 生命体征 to double entry', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page);
    await page.goto(`/study/crf?studyId=${studyId}`);
    const toggle = page.getByRole('switch', { name: '生命体征双份录入' });
    await toggle.click();
    // The switch turns on once the list has read the saved setting back: a state to wait on, unlike the notice.
    await page.getByRole('switch', { name: '生命体征双份录入', checked: true }).waitFor();
    await page.close();
  });

  it('two nurses type their entries blind to each other', async () => {
    const first = await enter(NURSE1, '第一次录入', { 收缩压: '120', 舒张压: '80', 心率: '72' });
    await screenshot(first, 'double-entry-first');
    await expectAccessible(first, 'double-entry-first');
    await first.close();
    const second = await enter(NURSE2, '第二次录入', { 收缩压: '120', 舒张压: '85', 心率: '72' });
    // Blind: the second nurse's form holds her own values, never the first entry's 80.
    expect(await second.locator('.double-entry-panel').getByLabel('舒张压').inputValue()).toBe('85');
    await second.close();
  });

  it('the reconciler finds the pair 待核对 in the 双份录入 tab of the query list', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page);
    await page.goto(`/project/${studyId}/doubtList`);
    await page.getByRole('tab', { name: '双份录入' }).click();
    const row = page.locator('tr', { hasText: '生命体征' }).filter({ hasText: '待核对' });
    await row.waitFor();
    expect(await row.textContent()).toContain(NURSE1.name);
    await screenshot(page, 'double-entry-list');
    await row.getByRole('button', { name: '核对' }).click();
    await page.waitForURL(new RegExp(`/crf/${subjectRecordId}\\?crfId=\\d+`));
    await page.locator('.double-entry-panel').waitFor();
    await page.close();
  });

  it('the reconciler decides the highlighted difference and 确认核对 writes the record', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page);
    await openVitals(page);
    await page.getByRole('button', { name: '双录入核对' }).click();
    const dialog = page.locator('.ant-modal', { hasText: '双录入核对' });
    await dialog.getByText('共 1 处差异，请逐项选择').waitFor();
    const diff = dialog.locator('tr.double-entry-diff');
    expect(await diff.count()).toBe(1);
    await diff.getByText('舒张压').waitFor();
    await screenshot(page, 'double-entry-reconcile');
    await expectAccessible(page, 'double-entry-reconcile');
    await diff.getByLabel('第二次录入').check();
    const reconciled = page.waitForResponse((r) => r.url().includes('/api/business/double-entry/reconcile'));
    await dialog.getByRole('button', { name: /确认核对/ }).click();
    expect(((await (await reconciled).json()) as { code: number }).code).toBe(200);

    const record = await api<{ crfDataRecord: { values: Record<string, unknown> } | null }>(
      'GET',
      `/api/v3/business/crf/${subjectRecordId}?crfId=${
        (await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`, admin)).find(
          (f) => f.title === '生命体征',
        )!.id
      }`,
      admin,
    );
    expect(record.crfDataRecord?.values).toMatchObject({ sbp: '120', dbp: '85', hr: '72' });
    await page.close();
  });
});
