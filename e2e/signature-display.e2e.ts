import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { signatureText, type Signature } from '@ecrf/core';
import { launchBrowser, newPage, screenshot, platformUnderTest, type Platform } from './harness.js';
import { ADMIN_PASSWORD, callApi, prepareAdmin, signInAs } from './api.js';

/**
 * Part 11 §11.50: a signed casebook shows its signatures where it is read. The investigator signs in the demo
 * study; CRF概览 shows 研究者签名：name, date and time in the study's zone, meaning; after a change the same
 * signature reads 签名已失效（数据修改于 …） and still names who signed, when and why.
 */
let platform: Platform;
let browser: Browser;
let token: string;
let subjectRecordId: number;

const api = <T>(method: string, path: string, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await platformUnderTest();
  browser = await launchBrowser();
  const prepared = await prepareAdmin(platform.baseUrl);
  token = prepared.token;
  const patient = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', {
    studyId: prepared.studyId,
    subjectName: '签名展示',
    gender: 0,
    birth: '1961-09-30',
    diseaseCode: 'LSS',
  });
  subjectRecordId = patient.subjectRecordId;
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const form = (page: Page) => page.locator('.crf-editor-form');
const messageText = (page: Page, text: string) => page.locator('.ant-message-notice', { hasText: text }).last();

async function fill(scope: Locator, label: string, value: string) {
  const input = scope.getByLabel(label, { exact: true });
  await input.fill(value);
  await input.blur();
}

async function save(page: Page) {
  await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).click();
  await messageText(page, '保存成功').waitFor();
}

/** Waits for antd's opening animations to end: on a loaded machine a click during the zoom can miss. */
async function settled(page: Page) {
  await page.waitForFunction(
    () =>
      !document.querySelector('[class*="-appear-active"], [class*="-enter-active"], .ant-zoom-appear, .ant-zoom-enter'),
  );
}

/** The lines the server's signatures should read as, in the study's zone (core's one text for print and screen). */
async function expectedLines() {
  const overview = await api<{ signatures: Signature[]; timeZone: string }>(
    'GET',
    `/api/v3/business/overview/${subjectRecordId}`,
  );
  return [...overview.signatures].reverse().map((s) => signatureText(s, overview.timeZone));
}

/**
 * Opens CRF概览 and answers its signature lines once the first reads as `first` (the dialog may show the cached
 * answer while it asks again).
 */
async function overviewLines(page: Page, first: RegExp) {
  await page.locator('.top-bar').getByRole('button', { name: 'CRF概览' }).click();
  const overview = page.getByRole('dialog', { name: 'CRF概览' });
  const signatures = overview.getByRole('region', { name: '电子签名' });
  await signatures.locator('li').first().filter({ hasText: first }).waitFor();
  const lines = await signatures.locator('li').allTextContents();
  return { overview, lines };
}

describe('signatures where the casebook is read', () => {
  it('the overview shows the signature (name, study-zone time, meaning); after a change it reads 签名已失效', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await fill(form(page), '体重', '60');
    await save(page);

    await page.locator('.top-bar').getByRole('button', { name: '签名' }).click();
    const dialog = page.getByRole('dialog', { name: '电子签名' });
    await dialog.getByText('尚未签名').waitFor();
    await settled(page);
    await dialog.getByLabel('登录密码').fill(ADMIN_PASSWORD);
    await dialog.getByRole('button', { name: '签名' }).click();
    await messageText(page, '签名成功').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    const signed = await overviewLines(page, /^研究者签名：/);
    const [line] = await expectedLines();
    expect(line).toMatch(/^研究者签名：系统管理员 \d{4}-\d{2}-\d{2} \d{2}:\d{2}（.+）$/);
    expect(signed.lines).toEqual([line]);
    await screenshot(page, 'signature-overview-valid');
    await signed.overview.getByRole('button', { name: '取消' }).click();
    await signed.overview.waitFor({ state: 'detached' });

    await fill(form(page), '体重', '61');
    await save(page);
    const voided = await overviewLines(page, /^签名已失效（数据修改于 /);
    const [voidedLine] = await expectedLines();
    // The voided line keeps the signature's own words: who, when, meaning.
    expect(voidedLine!.endsWith(`）原${line}`)).toBe(true);
    expect(voided.lines).toEqual([voidedLine]);
    expect(voided.lines[0]).toMatch(/^签名已失效（数据修改于 \d{4}-\d{2}-\d{2} \d{2}:\d{2}）原研究者签名：系统管理员 /);
    await screenshot(page, 'signature-overview-voided');
    await page.context().close();
  });
});
