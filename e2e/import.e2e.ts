import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  ADMIN,
  INITIAL_PASSWORD,
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  settle,
  startPlatform,
  type Platform,
} from './harness.js';

const PASSWORD = 'Import@2024';

let platform: Platform;
let browser: Browser;
let page: Page;
let bearer: string;
let studyId: number;
const patients: Array<{ identificationCode: string; subjectRecordId: number }> = [];

async function api<T>(method: string, url: string, body?: unknown, token = bearer): Promise<T> {
  const res = await fetch(`${platform.baseUrl}${url}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await res.json()) as { code: number; msg: string; data: T };
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${envelope.msg}`);
  return envelope.data;
}

/** A 人口学资料 sheet as a person fills the template: codes, then weight and height by variable name. */
async function workbook(rows: Array<[string, number, number]>): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const sheet = wb.addWorksheet('人口学资料');
  sheet.addRow(['identificationCode', 'weight', 'height']);
  sheet.addRow(['编号', '体重（kg）', '身高（cm）']);
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

async function weightOf(subjectRecordId: number) {
  const crfs = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`);
  const crfId = crfs.find((c) => c.title === '人口学资料')!.id;
  const detail = await api<{ crfDataRecord: { values: Record<string, unknown> } | null }>(
    'GET',
    `/api/v3/business/crf/${subjectRecordId}?crfId=${crfId}`,
  );
  return detail.crfDataRecord?.values.weight;
}

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  const first = await api<{ token: string }>(
    'POST',
    '/api/ignore/sys/login',
    { username: ADMIN, password: INITIAL_PASSWORD },
    '',
  );
  await api('PUT', '/api/system/user/password', { oldPassword: INITIAL_PASSWORD, newPassword: PASSWORD }, first.token);
  bearer = (await api<{ token: string }>('POST', '/api/ignore/sys/login', { username: ADMIN, password: PASSWORD }, ''))
    .token;
  studyId = (await api<{ list: Array<{ id: number }> }>('GET', '/api/business/study/list')).list[0]!.id;
  for (const [name, birth] of [
    ['孙导入', '1958-03-02'],
    ['周导入', '1966-11-20'],
  ]) {
    patients.push(
      await api('POST', '/api/business/subject', { studyId, subjectName: name, gender: 1, birth, diseaseCode: 'LSS' }),
    );
  }
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const dialog = () => page.getByRole('dialog', { name: '导入数据' });

async function choose(file: Buffer, name: string) {
  await dialog().locator('input[type=file]').setInputFiles({
    name,
    mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    buffer: file,
  });
  await dialog().getByText(name).waitFor();
}

describe('data import from the patient list', () => {
  it('SRCH-06: signs in, opens 导入 on the patient list and downloads the template', async () => {
    page = await newPage(browser, platform.baseUrl);
    await page.goto('/login');
    await page.getByPlaceholder('请输入手机号').fill(ADMIN);
    await page.getByPlaceholder('请输入密码').fill(PASSWORD);
    await page.getByRole('button', { name: '登 录' }).click();
    await page.locator('.top-bar').waitFor();
    await page.goto(`/project/${studyId}/subject`);
    await page.getByText(patients[1]!.identificationCode).waitFor();
    await page.getByRole('button', { name: '导入' }).click();
    await dialog().waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog().getByRole('button', { name: '下载导入模板' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.xlsx$/);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile((await download.path())!);
    expect(wb.getWorksheet('人口学资料')!.getRow(1).values).toContain('weight');
    expect(wb.getWorksheet('数据字典')).toBeDefined();
    await settle(page);
    await expectAccessible(page, 'import-dialog');
  });

  it('SRCH-06: a workbook with one bad row: 预览 shows the error with its row and column, and 整体导入 writes nothing', async () => {
    const [a, b] = patients as [(typeof patients)[0], (typeof patients)[0]];
    await choose(
      await workbook([
        [a.identificationCode, 68, 170],
        [b.identificationCode, 999, 165],
      ]),
      '有错误.xlsx',
    );
    await dialog().getByRole('button', { name: '预览' }).click();
    const preview = dialog().getByLabel('导入预览');
    await preview.waitFor();
    const bad = preview.locator('tr', { hasText: b.identificationCode });
    await bad.getByText('列“weight”').waitFor();
    // The preview's rows render after the error cell: wait for each, never read them at once.
    await expect.poll(() => bad.locator('td').first().textContent()).toBe('4');
    await preview.locator('tr', { hasText: a.identificationCode }).getByText('体重：（空） → 68 kg').waitFor();
    await screenshot(page, 'import-preview-error');
    await expectAccessible(page, 'import-preview-error');
    await dialog().getByRole('radio', { name: '整体导入' }).check();
    await dialog().getByRole('button', { name: '确认导入' }).click();
    await dialog().getByText('已导入 0 位患者').waitFor();
    await dialog().getByText('第4行').waitFor();
    expect(await weightOf(a.subjectRecordId)).toBeUndefined();
    expect(await weightOf(b.subjectRecordId)).toBeUndefined();
  });

  it('SRCH-06: the fixed row imports; the values are on the CRF page with 数据导入 in the item history', async () => {
    const [a, b] = patients as [(typeof patients)[0], (typeof patients)[0]];
    await choose(
      await workbook([
        [a.identificationCode, 68, 170],
        [b.identificationCode, 72, 165],
      ]),
      '已改正.xlsx',
    );
    await dialog().getByRole('button', { name: '预览' }).click();
    await dialog().getByText('错误 0 个', { exact: false }).waitFor();
    await dialog().getByRole('button', { name: '确认导入' }).click();
    await dialog().getByText('已导入 2 位患者').waitFor();
    await screenshot(page, 'import-done');
    expect(await weightOf(b.subjectRecordId)).toBe('72');

    await page.goto(`/crf/${b.subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    const weight = page.locator('.crf-editor-form').getByLabel('体重', { exact: true });
    await weight.waitFor();
    expect(await weight.inputValue()).toBe('72');
    await page.locator('.crf-item-row[data-item="weight"]').getByRole('button', { name: '修改历史 体重' }).click();
    const drawer = page.locator('.ant-drawer', { hasText: '修改历史 · 体重' });
    await drawer.getByText('数据导入', { exact: false }).first().waitFor();
    expect(await drawer.textContent()).toContain('72 kg');
    // The reason names the file's SHA-256, one long word: it wraps in its column instead of widening the trail.
    const trail = drawer.getByRole('region', { name: '修改历史 · 体重' });
    expect(await trail.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await expectAccessible(page, 'import-item-history');
    await screenshot(page, 'import-item-history');
  });
});
