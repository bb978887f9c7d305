import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';

/**
 * One time zone: the server runs in Asia/Shanghai and the browser in New York here (the other files run the
 * server in UTC and the browser in Shanghai). Every shown time and every "today" is the study's, whatever
 * either machine's zone.
 */

let platform: Platform;
let browser: Browser;
let token: string;
let studyId: number;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

/** The wall clock of an instant in a zone, as the product shows it. */
function wallClock(instant: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

beforeAll(async () => {
  platform = await startPlatform({ timeZone: 'Asia/Shanghai' });
  browser = await launchBrowser();
  ({ token, studyId } = await prepareAdmin(platform.baseUrl));
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const signIn = (page: Page) => signInAs(page);

describe('one time zone', () => {
  it("DATE-10: 入组时间 shows in the study zone, not the browser's, and follows a change of the study zone", async () => {
    const patient = await api<{ id: number }>('POST', '/api/business/subject', token, {
      studyId,
      subjectName: '周时区',
      gender: 1,
      birth: '1970-05-06',
      diseaseCode: 'LSS',
      mobile: '13912345670',
    });
    const read = await api<{ createTime: string }>('GET', `/api/business/subject/${patient.id}`, token);
    const enrolled = new Date(read.createTime);

    const page = await newPage(browser, platform.baseUrl, { timeZone: 'America/New_York' });
    await signIn(page);
    await page.goto(`/project/${studyId}/subject`);
    const row = page.locator('.keep-alive-page:visible').getByRole('row').filter({ hasText: '周时区' });
    await row.waitFor();
    await row.getByText(wallClock(enrolled, 'Asia/Shanghai'), { exact: true }).waitFor();
    expect(await row.textContent()).not.toContain(wallClock(enrolled, 'America/New_York'));
    await screenshot(page, 'time-zone-patient-list');

    await api('PUT', '/api/business/study', token, { id: studyId, timeZone: 'Europe/Berlin' });
    await page.reload();
    await row.getByText(wallClock(enrolled, 'Europe/Berlin'), { exact: true }).waitFor();
    await api('PUT', '/api/business/study', token, { id: studyId, timeZone: 'Asia/Shanghai' });
    await page.context().close();
  });

  it('DATE-08: a new form\'s "now" default is the study\'s now, in a browser twelve hours behind', async () => {
    const page = await newPage(browser, platform.baseUrl, { timeZone: 'America/New_York' });
    await signIn(page);
    await page.goto(`/project/${studyId}/subject`);
    const row = page.locator('.keep-alive-page:visible').getByRole('row').filter({ hasText: '周时区' });
    await row.getByRole('button', { name: '录入' }).click();
    await page.waitForURL(/\/crf\/\d+/);
    await page.locator('.crf-menu-form', { hasText: '生命体征' }).click();
    await page.locator('.crf-form-title', { hasText: '生命体征' }).waitFor();
    const measured = page.locator('.crf-editor-form').getByLabel('测量时间', { exact: true });
    await measured.waitFor();
    const shown = await measured.inputValue();
    const before = wallClock(new Date(Date.now() - 120_000), 'Asia/Shanghai');
    const after = wallClock(new Date(Date.now() + 120_000), 'Asia/Shanghai');
    // The default is written to the minute or second of the study zone's clock when the form opened.
    expect(shown.slice(0, 16) >= before.slice(0, 16) && shown.slice(0, 16) <= after.slice(0, 16), shown).toBe(true);
    await screenshot(page, 'time-zone-crf-now');
    await page.context().close();
  });
});
