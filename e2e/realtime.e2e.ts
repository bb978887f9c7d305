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
import { ADMIN_PASSWORD, DEMO_STUDY, addStudyMember, callApi, loginApi } from './api.js';

const MONITOR = { userName: '13700000011', name: '李监查', password: 'Monitor@2024' };
const NURSE = { userName: '13700000012', name: '王护士', password: 'Nurse@2024' };

let platform: Platform;
let browser: Browser;
let admin: string;
let studyId: number;
let subjectRecordId: number;
let vitalsId: number;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

const login = (username: string, password: string) => loginApi(platform.baseUrl, username, password);

const member = (person: typeof MONITOR, permissions: string[]) =>
  addStudyMember(platform.baseUrl, admin, studyId, person, permissions);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  const first = await login(ADMIN, INITIAL_PASSWORD);
  await api('PUT', '/api/system/user/password', first.token, {
    userId: first.user.userId,
    oldPassword: INITIAL_PASSWORD,
    newPassword: ADMIN_PASSWORD,
  });
  admin = (await login(ADMIN, ADMIN_PASSWORD)).token;
  const studies = await api<{ list: Array<{ id: number; studyName: string }> }>(
    'GET',
    '/api/business/study/list?pageNum=1&pageSize=50',
    admin,
  );
  studyId = studies.list.find((s) => s.studyName === DEMO_STUDY)!.id;
  await api('POST', '/api/business/study/doubt', admin, { studyId, doubt: '1' });
  const crfs = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`, admin);
  const formKeys = crfs.flatMap((c) => [`crf:${c.id}:view`, `crf:${c.id}:save`, `crf:${c.id}:submit`]);
  await member(MONITOR, ['btn:study.doubt.open', 'btn:study.doubt.close', 'btn:study.iconBtn.doubt', ...formKeys]);
  await member(NURSE, ['btn:study.doubt.reply', 'btn:business.crf.save', 'btn:study.iconBtn.doubt', ...formKeys]);
  const patient = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', admin, {
    studyId,
    subjectName: '赵平安',
    gender: 1,
    birth: '1962-05-20',
    diseaseCode: 'LSS',
  });
  subjectRecordId = patient.subjectRecordId;
  vitalsId = crfs.find((c) => c.title === '生命体征')!.id;
  await api('PUT', '/api/v3/business/crf', admin, {
    subjectRecordId,
    crfId: vitalsId,
    version: 0,
    values: { sbp: 128, dbp: 82, hr: 76 },
  });
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function signIn(page: Page, person: typeof MONITOR) {
  await page.goto('/login');
  await page.getByPlaceholder('请输入手机号').fill(person.userName);
  await page.getByPlaceholder('请输入密码').fill(person.password);
  await page.getByRole('button', { name: '登 录' }).click();
  await page.locator('.top-bar').waitFor();
}

/** Resolves once the page's socket has joined a study room on eventhub (the acknowledgement of study:join). */
function studyRoomJoined(page: Page): Promise<void> {
  return new Promise((resolve) => {
    page.on('websocket', (ws) => {
      if (!ws.url().includes('/socket.io/')) return;
      ws.on('framereceived', (frame) => {
        if (String(frame.payload).startsWith('43/eventhub,') && String(frame.payload).includes('"ok":true')) resolve();
      });
    });
  });
}

/** Resolves once the page's socket has connected to the personal hub (the frame Socket.IO answers a namespace with). */
function personalHubConnected(page: Page): Promise<void> {
  return new Promise((resolve) => {
    page.on('websocket', (ws) => {
      if (!ws.url().includes('/socket.io/')) return;
      ws.on('framereceived', (frame) => {
        if (String(frame.payload).startsWith('40/personsignalhub,')) resolve();
      });
    });
  });
}

describe('realtime', () => {
  it("RT-01: the monitor raises a query; the nurse's red dot and a 新质疑 notice appear without a reload", async () => {
    const nursePage = await newPage(browser, platform.baseUrl);
    const hub = personalHubConnected(nursePage);
    await signIn(nursePage, NURSE);
    await nursePage.goto(`/project/${studyId}/home`);
    await nursePage.locator('.top-bar').waitFor();
    await hub;
    // Nothing waits for the nurse yet: the bell (there since the follow-up pages exist) has no dot.
    await nursePage.locator('.top-bar .top-bar-follow[aria-label="随访提醒"]').waitFor();
    expect(await nursePage.locator('.top-bar .ant-badge:has(.top-bar-follow) .ant-badge-dot').count()).toBe(0);
    await nursePage.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });

    const monitorPage = await newPage(browser, platform.baseUrl);
    await signIn(monitorPage, MONITOR);
    await monitorPage.goto(`/crf/${subjectRecordId}`);
    await monitorPage.locator('.crf-menu-form', { hasText: '生命体征' }).click();
    await monitorPage.locator('.crf-form-title', { hasText: '生命体征' }).waitFor();
    await monitorPage.locator('.top-bar').getByRole('button', { name: '质疑' }).click();
    const picker = monitorPage.getByRole('dialog', { name: '选择质疑题目' });
    await picker.getByLabel('质疑题目').click();
    await monitorPage.locator('.ant-select-dropdown:visible').getByTitle('心率（生命体征）').click();
    await picker.getByRole('button', { name: '确定' }).click();
    await picker.waitFor({ state: 'detached' });
    const start = monitorPage.getByRole('dialog', { name: '发起质疑' });
    await start.getByLabel('质疑内容').fill('心率与原始病历不符，请核实');
    await start.getByRole('button', { name: '发起质疑' }).click();
    await monitorPage.locator('.ant-message-notice', { hasText: '开启质疑成功' }).waitFor();

    // The nurse's page, untouched since: the notice and the red dot arrive by push.
    const notice = nursePage.locator('.ant-notification-notice', { hasText: '新质疑' });
    await notice.waitFor();
    expect(await notice.textContent()).toContain('生命体征');
    const bell = nursePage.locator('.top-bar .top-bar-follow');
    await bell.waitFor();
    expect(await bell.getAttribute('aria-label')).toBe('随访提醒 · 待处理质疑 1 条');
    await nursePage.locator('.top-bar .ant-badge-dot').waitFor();
    expect(await nursePage.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await settle(nursePage);
    await screenshot(nursePage, 'realtime-nurse-notice');
    await expectAccessible(nursePage, 'realtime-nurse-notice');
    await screenshot(monitorPage, 'realtime-monitor-query');

    // The bell leads to the query list, where the query waits.
    await notice.waitFor({ state: 'detached', timeout: 15_000 });
    // The bell opens 随访记录 (SHELL-25) now that the follow-up pages exist; the query waits in the query list.
    await bell.click();
    await nursePage.waitForURL(`**/project/${studyId}/follow/record`);
    await nursePage.goto(`/project/${studyId}/doubtList`);
    await nursePage.getByText('心率与原始病历不符，请核实').first().waitFor();
    await monitorPage.context().close();
    await nursePage.context().close();
  });

  it('RT-04: 语音播报 in the personal menu is off at first, remembered for the user, and speaks the next notice in zh-CN', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await page.addInitScript(() => {
      const spoken: { text: string; lang: string }[] = [];
      (window as unknown as { spoken: typeof spoken }).spoken = spoken;
      window.speechSynthesis.speak = (u: SpeechSynthesisUtterance) => {
        spoken.push({ text: u.text, lang: u.lang });
        setTimeout(() => u.onend?.(new Event('end') as SpeechSynthesisEvent), 0);
      };
    });
    const hub = personalHubConnected(page);
    await signIn(page, NURSE);
    await page.goto(`/project/${studyId}/home`);
    await hub;
    await page.locator('.top-bar-user').click();
    const speech = page.getByRole('switch', { name: '语音播报' });
    await speech.waitFor();
    expect(await speech.getAttribute('aria-checked')).toBe('false');
    await speech.click();
    await expect.poll(() => speech.getAttribute('aria-checked')).toBe('true');
    await settle(page);
    await screenshot(page, 'realtime-speech-switch');
    await expectAccessible(page, 'realtime-speech-switch');
    // Closed by its own trigger, and waited for until gone: a menu still leaving would be found visible later, and
    // 退出登录 clicked as it disappears.
    const personal = page.locator('.user-popover');
    await page.locator('.top-bar-user').click();
    await personal.waitFor({ state: 'hidden' });

    const monitor = await login(MONITOR.userName, MONITOR.password);
    const detail = await api<{ crfDataRecord: { id: number } }>(
      'GET',
      `/api/v3/business/crf/${subjectRecordId}?crfId=${vitalsId}`,
      monitor.token,
    );
    await api('POST', '/api/business/doubt/open', monitor.token, {
      crfDataRecordId: detail.crfDataRecord.id,
      itemName: 'sbp',
      doubtDescription: '收缩压请核实',
    });
    await page.locator('.ant-notification-notice', { hasText: '新质疑' }).waitFor();
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { spoken: { text: string; lang: string }[] }).spoken))
      .toEqual([{ text: '新质疑，生命体征', lang: 'zh-CN' }]);

    // Signed out and in again, the choice stays.
    await page.locator('.top-bar-user').click();
    await personal.getByRole('button', { name: '退出登录' }).waitFor();
    await settle(page);
    await personal.getByRole('button', { name: '退出登录' }).click();
    await page.waitForURL('**/login');
    await signIn(page, NURSE);
    await page.goto(`/project/${studyId}/home`);
    await page.locator('.top-bar-user').click();
    await expect.poll(() => page.getByRole('switch', { name: '语音播报' }).getAttribute('aria-checked')).toBe('true');
    await page.context().close();
  });
  it('a colleague saving the form the nurse has open shows 已被他人修改 with 刷新, which loads the saved values', async () => {
    const page = await newPage(browser, platform.baseUrl);
    const joined = studyRoomJoined(page);
    await signIn(page, NURSE);
    // Straight to the form from a link: no project page before it.
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-menu-form', { hasText: '生命体征' }).click();
    await page.locator('.crf-form-title', { hasText: '生命体征' }).waitFor();
    const heartRate = page.locator('.crf-editor-form').getByLabel('心率');
    await expect.poll(() => heartRate.inputValue()).toBe('76');
    await joined;

    const detail = await api<{ crfDataRecord: { id: number; version: number } }>(
      'GET',
      `/api/v3/business/crf/${subjectRecordId}?crfId=${vitalsId}`,
      admin,
    );
    await api('PUT', '/api/v3/business/crf', admin, {
      subjectRecordId,
      crfId: vitalsId,
      crfDataRecordId: detail.crfDataRecord.id,
      version: detail.crfDataRecord.version,
      values: { sbp: 128, dbp: 82, hr: 88 },
    });

    const notice = page.locator('.ant-notification-notice', { hasText: '已被他人修改' });
    await notice.waitFor();
    await settle(page);
    await screenshot(page, 'realtime-saved-elsewhere');
    await expectAccessible(page, 'realtime-saved-elsewhere');
    await notice.getByRole('button', { name: '刷新' }).click();
    await expect.poll(() => heartRate.inputValue()).toBe('88');
    await page.context().close();
  });
});
