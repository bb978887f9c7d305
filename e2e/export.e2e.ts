import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
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

const ADMIN_PASSWORD = 'Export@2024';
const DEMO_STUDY = '腰椎管狭窄症手术登记研究（示例）';

let platform: Platform;
let browser: Browser;
let page: Page;
let studyId: number;
const codes: Record<string, string> = {};

async function api<T>(method: string, path: string, token: string | null, body?: unknown): Promise<T> {
  const res = await fetch(`${platform.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await res.json()) as { code: number; msg: string; data: T };
  if (envelope.code !== 200) throw new Error(`${method} ${path}: ${envelope.code} ${envelope.msg}`);
  return envelope.data;
}

const login = (password: string) =>
  api<{ token: string; user: { userId: number } }>('POST', '/api/ignore/sys/login', null, {
    username: ADMIN,
    password,
  });

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  const first = await login(INITIAL_PASSWORD);
  await api('PUT', '/api/system/user/password', first.token, {
    userId: first.user.userId,
    oldPassword: INITIAL_PASSWORD,
    newPassword: ADMIN_PASSWORD,
  });
  const { token } = await login(ADMIN_PASSWORD);
  const studies = await api<{ list: Array<{ id: number; studyName: string }> }>(
    'GET',
    '/api/business/study/list?pageNum=1&pageSize=50',
    token,
  );
  studyId = studies.list.find((s) => s.studyName === DEMO_STUDY)!.id;
  const crfs = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`, token);
  const crfId = (title: string) => crfs.find((c) => c.title === title)!.id;
  // Two patients with their vital signs entered through the API.
  for (const [name, gender, birth, sbp] of [
    ['赵建华', 1, '1960-05-01', 148],
    ['钱淑芬', 0, '1968-11-23', 121],
  ] as const) {
    const patient = await api<{ subjectRecordId: number; identificationCode: string }>(
      'POST',
      '/api/business/subject',
      token,
      { studyId, subjectName: name, gender, birth, diseaseCode: 'LSS' },
    );
    codes[name] = patient.identificationCode;
    await api('PUT', '/api/v3/business/crf', token, {
      subjectRecordId: patient.subjectRecordId,
      crfId: crfId('生命体征'),
      version: 0,
      values: { sbp, dbp: 80, hr: 70 },
    });
  }
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const drawer = () => page.locator('.jobs-drawer');

describe('数据导出', () => {
  it('SRCH-02/SRCH-05: 导出 on 数据检索 exports Excel as a job whose progress reaches 100% in 任务, and the downloaded workbook holds the entered values', async () => {
    page = await newPage(browser, platform.baseUrl);
    await page.goto('/login');
    await page.getByPlaceholder('请输入手机号').fill(ADMIN);
    await page.getByPlaceholder('请输入密码').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: '登 录' }).click();
    await page.waitForURL('**/studyList');
    await page.goto(`/project/${studyId}/home`);
    await page.locator('.ant-menu').getByText('数据检索', { exact: true }).click();
    await page.waitForURL(`**/project/${studyId}/retrieval`);
    await page.getByRole('heading', { name: '数据检索' }).waitFor();

    await page.getByRole('button', { name: '导出', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: '导出数据' });
    await dialog.waitFor();
    // No search has been run: the whole study is the scope; Excel with labels is the default.
    expect(await dialog.getByRole('radio', { name: '整个项目' }).isChecked()).toBe(true);
    expect(await dialog.getByRole('radio', { name: /^Excel/ }).isChecked()).toBe(true);
    await settle(page);
    await screenshot(page, 'export-dialog');
    await expectAccessible(page, 'export-dialog');

    await dialog.getByRole('button', { name: '开始导出' }).click();
    await page.locator('.ant-message-notice', { hasText: '已开始导出' }).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    // The 任务 drawer opens on the export's progress.
    await drawer().waitFor();
    const row = drawer().locator('.jobs-drawer-item', { hasText: '数据导出' }).first();
    await row.waitFor();
    await row.locator('.ant-tag', { hasText: '已完成' }).waitFor({ timeout: 60_000 });
    await expect.poll(() => row.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    await row.getByText('导出完成').waitFor();
    await settle(page);
    await screenshot(page, 'export-jobs-drawer-done');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: '下载' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/_数据导出_\d{14}\.xlsx$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(fs.readFileSync(await download.path()) as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('生命体征')!;
    const header = Array.from(sheet.getRow(1).values as unknown[], (v) => String(v ?? ''));
    const codeAt = header.indexOf('编号');
    const sbpAt = header.findIndex((h) => h.startsWith('收缩压'));
    expect(sbpAt).toBeGreaterThan(0);
    const values = new Map<string, unknown>();
    sheet.eachRow((r, n) => {
      if (n > 1) values.set(String((r.values as unknown[])[codeAt]), (r.values as unknown[])[sbpAt]);
    });
    expect(values.get(codes['赵建华']!)).toBe(148);
    expect(values.get(codes['钱淑芬']!)).toBe(121);
    expect(workbook.worksheets.at(-1)!.name).toBe('数据字典');
  });

  it('SRCH-02: 导出记录 lists the export with who made it, its rows and the file SHA-256', async () => {
    await page.keyboard.press('Escape');
    await drawer().waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: '导出记录' }).click();
    const log = page.locator('.ant-drawer', { hasText: '导出记录' });
    const first = log.locator('.ant-table-tbody tr.ant-table-row').first();
    await first.waitFor();
    await first.getByText('已完成').waitFor();
    expect(await first.textContent()).toContain('Excel');
    await settle(page);
    await screenshot(page, 'export-log');
    await expectAccessible(page, 'export-log');
  });
  it('SPSS: the dialog’s SPSS data file downloads as a .sav that PSPP reads with the entered values; REDCap offers codes only', async () => {
    const log = page.locator('.ant-drawer-open', { hasText: '导出记录' });
    await log.locator('.ant-drawer-close').click();
    await expect.poll(() => log.count()).toBe(0);
    await page.getByRole('button', { name: '导出', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: '导出数据' });
    await dialog.waitFor();
    // REDCap's importer reads codes only: the labels choice is closed, with the reason beside it.
    await dialog.getByRole('radio', { name: /^REDCap 导入格式/ }).check();
    expect(await dialog.getByRole('radio', { name: '标签', exact: true }).isDisabled()).toBe(true);
    await dialog.getByRole('radio', { name: /^SPSS 数据文件/ }).check();
    expect(await dialog.getByRole('radio', { name: '标签', exact: true }).isDisabled()).toBe(false);
    await dialog.getByRole('button', { name: '开始导出' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await drawer().waitFor();
    const row = drawer().locator('.jobs-drawer-item', { hasText: '数据导出' }).first();
    await row.locator('.ant-tag', { hasText: '已完成' }).waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: '下载' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.sav$/);
    const file = await download.path();
    // An SPSS system file opens with its record type 1 magic.
    expect(fs.readFileSync(file).subarray(0, 4).toString('latin1')).toBe('$FL2');
    const pspp = spawnSync('pspp', ['--version'], { stdio: 'ignore' }).status === 0;
    if (!pspp && process.env.REQUIRE_EXTERNAL_TOOLS === '1') throw new Error('pspp is not installed');
    if (pspp) {
      const out = spawnSync('pspp', ['-O', 'format=csv', '-o', '-'], {
        input: `GET FILE='${file}'.\nLIST.\n`,
        encoding: 'utf8',
      });
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).toContain(codes['赵建华']!);
      expect(out.stdout).toMatch(/\b148\b/);
      expect(out.stdout).toMatch(/\b121\b/);
    }
  });
});
