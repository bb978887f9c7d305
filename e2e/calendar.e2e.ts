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

const PASSWORD = 'Calendar@2024';

let platform: Platform;
let browser: Browser;
let page: Page;
let studyId: number;
let adminToken = '';
/** The enrolled patient's code and casebook. */
let patient: { identificationCode: string; subjectRecordId: number };
const consoleErrors: string[] = [];

async function api<T>(method: string, url: string, body?: unknown, token = ''): Promise<T> {
  const res = await fetch(`${platform.baseUrl}${url}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await res.json()) as { code: number; msg: string; data: T };
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${envelope.msg}`);
  return envelope.data;
}

/** Today in the study's zone (Asia/Shanghai, the browser's zone here; the server runs in UTC). */
const today = () =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Asia/Shanghai',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  const first = await api<{ token: string }>('POST', '/api/ignore/sys/login', {
    username: ADMIN,
    password: INITIAL_PASSWORD,
  });
  await api('PUT', '/api/system/user/password', { oldPassword: INITIAL_PASSWORD, newPassword: PASSWORD }, first.token);
  const token = (await api<{ token: string }>('POST', '/api/ignore/sys/login', { username: ADMIN, password: PASSWORD }))
    .token;
  adminToken = token;
  studyId = (await api<{ list: Array<{ id: number }> }>('GET', '/api/business/study/list', undefined, token)).list[0]!
    .id;
  // One patient, so the dashboard's enrolment charts have a figure to draw.
  patient = await api(
    'POST',
    '/api/business/subject',
    { studyId, subjectName: '孙八', gender: 1, birth: '1960-05-01', diseaseCode: 'LSS' },
    token,
  );
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const calendarButton = () => page.locator('.top-bar-calendar');
const todayCell = () => page.locator(`.calendar-cell[data-day="${today()}"]`);

describe('日历 and the study dashboard', () => {
  it('FOLLOW-03: opens 日历 from the side menu: the month of today, accessible', async () => {
    page = await newPage(browser, platform.baseUrl);
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(err.message));
    await page.goto('/login');
    await page.getByPlaceholder('请输入手机号').fill(ADMIN);
    await page.getByPlaceholder('请输入密码').fill(PASSWORD);
    await page.getByRole('button', { name: '登 录' }).click();
    await page.waitForURL('**/studyList');
    await page.goto(`/project/${studyId}/home`);
    await page.locator('.ant-menu').getByText('日历', { exact: true }).click();
    await page.waitForURL(`**/project/${studyId}/calendar`);
    await todayCell().waitFor();
    // No event today yet: the calendar icon has no red dot.
    expect(await calendarButton().getAttribute('aria-label')).toBe('日历');
    expect(await page.locator('.top-bar .ant-badge:has(.top-bar-calendar) .ant-badge-dot').count()).toBe(0);
    await expectAccessible(page, 'calendar-month');
  });

  it('SHELL-22: an event created by clicking today shows in the month and puts count 1 with a red dot on the calendar icon', async () => {
    await todayCell().click();
    const dialog = page.getByRole('dialog', { name: '新增日程' });
    await dialog.waitFor();
    await settle(page);
    await expectAccessible(page, 'calendar-new-event');
    await dialog.getByLabel('标题').fill('随访电话会议');
    await dialog.getByRole('button', { name: /确\s*定/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    await todayCell().locator('.calendar-event', { hasText: '随访电话会议' }).waitFor();
    // The count comes with the save's push (personsignalhub counts), without a reload.
    await page.locator('.top-bar-calendar[aria-label="日历 · 今日日程 1 个"]').waitFor();
    await page.locator('.top-bar .ant-badge:has(.top-bar-calendar) .ant-badge-dot').waitFor();
    await screenshot(page, 'calendar-month-with-event');
  });

  it('edits the event, and deletes it after confirmation: the dot goes', async () => {
    await todayCell().locator('.calendar-event', { hasText: '随访电话会议' }).click();
    const dialog = page.getByRole('dialog', { name: '编辑日程' });
    await dialog.waitFor();
    await settle(page);
    await dialog.getByLabel('标题').fill('术后随访电话');
    await dialog.getByRole('button', { name: /确\s*定/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    await todayCell().locator('.calendar-event', { hasText: '术后随访电话' }).waitFor();

    await page.getByText('周', { exact: true }).click();
    await page
      .locator(`.calendar-agenda-day[aria-label="${today()}"] .calendar-event`, { hasText: '术后随访电话' })
      .waitFor();
    await expectAccessible(page, 'calendar-week');
    await screenshot(page, 'calendar-week');
    await page.getByText('月', { exact: true }).click();

    await todayCell().locator('.calendar-event', { hasText: '术后随访电话' }).click();
    await dialog.waitFor();
    await settle(page);
    await dialog.getByRole('button', { name: /删\s*除/ }).click();
    const confirm = page.locator('.ant-popconfirm', { hasText: '确定删除该日程吗？' });
    await confirm.waitFor();
    await settle(page);
    await confirm.getByRole('button', { name: /确\s*定/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    await todayCell().locator('.calendar-event').waitFor({ state: 'detached' });
    await page.locator('.top-bar-calendar[aria-label="日历"]').waitFor();
    // The dot zooms out before it leaves the page.
    await page.locator('.top-bar .ant-badge:has(.top-bar-calendar) .ant-badge-dot').waitFor({ state: 'detached' });
  });

  it('the study home draws its dashboard charts (canvas), with the enrolment target, and no console errors', async () => {
    // 项目设置 · 入组目标 (saved as the settings page saves it): the cumulative chart draws its line.
    await api(
      'PUT',
      '/api/business/study',
      { id: studyId, enrolmentTarget: 3, enrolmentTargetDate: '2027-06-30' },
      adminToken,
    );
    await page.locator('.ant-menu').getByText('项目首页', { exact: true }).click();
    await page.waitForURL(`**/project/${studyId}/home`);
    const charts = page.locator('.home-charts');
    await charts.waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.home-charts canvas').length >= 3);
    for (const name of ['累计入组', '每周质疑', '各表单状态']) {
      await page.getByRole('img', { name }).locator('canvas').waitFor();
    }
    await expectAccessible(page, 'study-dashboard');
    expect(await page.getByText('项目未设置入组目标').count()).toBe(0);
    await screenshot(page, 'study-dashboard');
    expect(consoleErrors).toEqual([]);
  });

  it('FOLLOW-16: an event about a patient: picked by code in 新增日程, shown on the day, its dialog opens the casebook', async () => {
    await page.locator('.ant-menu').getByText('日历', { exact: true }).click();
    await page.waitForURL(`**/project/${studyId}/calendar`);
    await todayCell().click();
    const dialog = page.getByRole('dialog', { name: '新增日程' });
    await dialog.waitFor();
    await settle(page);
    await dialog.getByLabel('标题').fill('复诊提醒');
    const picker = dialog.getByLabel('患者', { exact: true });
    await picker.click();
    await picker.fill(patient.identificationCode);
    // The name is shown as the patient list shows it to this user (the administrator sees it whole).
    const option = page.locator('.ant-select-dropdown:visible .ant-select-item-option', {
      hasText: patient.identificationCode,
    });
    await option.first().waitFor();
    expect(await option.first().textContent()).toContain('孙八');
    await option.first().click();
    await dialog.getByRole('button', { name: /确\s*定/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    const event = todayCell().locator('.calendar-event', { hasText: '复诊提醒' });
    await event.locator('.calendar-event-patient', { hasText: patient.identificationCode }).waitFor();
    await event.click();
    const edit = page.getByRole('dialog', { name: '编辑日程' });
    await edit.waitFor();
    await settle(page);
    // The event's patient is shown in its picker with code and name.
    await edit.getByText(`${patient.identificationCode} 孙八`).first().waitFor();
    await expectAccessible(page, 'calendar-event-patient');
    await screenshot(page, 'calendar-event-patient');
    await edit.getByRole('link', { name: '打开病历' }).click();
    await page.waitForURL(`**/crf/${patient.subjectRecordId}`);
    expect(consoleErrors).toEqual([]);
  });
});
