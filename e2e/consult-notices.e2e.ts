import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  settle,
  startPlatform,
  type Platform,
} from './harness.js';
import { ADMIN_PASSWORD, addStudyMember, callApi, prepareAdmin, signInAs } from './api.js';

const NURSE = { userName: '13700000051', name: '陈护士', password: 'Nurse@2024' };

let platform: Platform;
let browser: Browser;
let admin: string;
let studyId: number;
let subjectRecordId: number;
let code: string;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

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

let nursePage: Page;

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  await addStudyMember(platform.baseUrl, admin, studyId, NURSE, [
    'btn:business.consult.reply',
    'btn:business.subject.identifiers',
  ]);
  const patient = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', admin, {
    studyId,
    subjectName: '孙晓燕',
    gender: 0,
    birth: '1968-03-12',
    diseaseCode: 'LSS',
  });
  subjectRecordId = patient.subjectRecordId;
  const list = await api<{ list: { id: number; subjectRecordId: number; identificationCode: string }[] }>(
    'POST',
    '/api/v3/business/subjectRecord/list',
    admin,
    { studyId, pageNum: 1, pageSize: 50 },
  );
  const row = list.list.find((r) => r.subjectRecordId === subjectRecordId)!;
  code = row.identificationCode;
  // A question the patient asked by telephone, entered for her by the study office.
  await api('POST', '/api/v1/advisory/manager', admin, {
    studyId,
    subjectId: row.id,
    title: '术后多久可以弯腰',
    question: '出院两周了，弯腰捡东西会不会影响恢复？',
  });
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('notices, consultation and global search', () => {
  it('SHELL-34: a notice the administrator publishes on 通知公告 reaches the signed-in nurse live, and opening the bell marks it read', async () => {
    nursePage = await newPage(browser, platform.baseUrl);
    const hub = personalHubConnected(nursePage);
    await signInAs(nursePage, NURSE.userName, NURSE.password);
    await hub;
    // Nothing for the nurse yet: the bell has no dot.
    await nursePage.locator('.top-bar .top-bar-notices').waitFor();
    expect(await nursePage.locator('.top-bar .ant-badge:has(.top-bar-notices) .ant-badge-dot').count()).toBe(0);

    const adminPage = await newPage(browser, platform.baseUrl);
    await signInAs(adminPage, '13800000000', ADMIN_PASSWORD);
    await adminPage.goto('/sys/notice');
    await adminPage.getByRole('button', { name: '发布公告' }).click();
    const dialog = adminPage.getByRole('dialog', { name: '发布公告' });
    await settle(adminPage);
    await dialog.getByLabel('标题').fill('随访系统升级通知');
    await dialog.getByLabel('内容').fill('本周六晚 22:00 起暂停服务一小时');
    await dialog.getByRole('button', { name: /^确\s?定$/ }).click();
    await adminPage.locator('.ant-message-notice', { hasText: '发布成功' }).waitFor();
    await adminPage.locator('.ant-table-row', { hasText: '随访系统升级通知' }).waitFor();
    await screenshot(adminPage, 'notice-admin');
    await expectAccessible(adminPage, 'notice-admin');
    await adminPage.context().close();

    // The nurse's page, untouched since: the announcement and the red dot arrive by push.
    await nursePage.locator('.ant-notification-notice', { hasText: '随访系统升级通知' }).waitFor();
    await nursePage.locator('.top-bar .ant-badge:has(.top-bar-notices) .ant-badge-dot').waitFor();
    await nursePage.locator('.top-bar .top-bar-notices').click();
    await nursePage.locator('.notice-popover', { hasText: '随访系统升级通知' }).waitFor();
    await screenshot(nursePage, 'notice-bell');
    await nursePage.locator('.top-bar .ant-badge:has(.top-bar-notices) .ant-badge-dot').waitFor({ state: 'detached' });
    await nursePage.keyboard.press('Escape');
  });

  it('KNOW-05: the nurse answers a consultation on 在线咨询 and it shows 已回复', async () => {
    await nursePage.goto(`/project/${studyId}/home`);
    await nursePage.locator('.top-bar').waitFor();
    await nursePage.goto('/project/consult');
    const row = nursePage.locator('.ant-table-row', { hasText: '术后多久可以弯腰' });
    await row.waitFor();
    await row.getByText('待回复').waitFor();
    // The nurse sees names: the patient appears by code and name.
    await row.getByText('孙晓燕').waitFor();
    await row.getByRole('button', { name: '回复' }).click();
    const dialog = nursePage.getByRole('dialog', { name: '回复咨询' });
    await settle(nursePage);
    await dialog.getByText('出院两周了，弯腰捡东西会不会影响恢复？').waitFor();
    await dialog.getByLabel('回复内容').fill('术后三个月内避免弯腰搬重物，捡东西请屈膝下蹲。');
    await dialog.getByRole('button', { name: /^确\s?定$/ }).click();
    await nursePage.locator('.ant-message-notice', { hasText: '回复成功' }).waitFor();
    await row.getByText('已回复').waitFor();
    await screenshot(nursePage, 'consult-list');
    await expectAccessible(nursePage, 'consult-list');
    await row.getByRole('button', { name: '查看' }).click();
    const detail = nursePage.getByRole('dialog', { name: '咨询详情' });
    await detail.getByText('术后三个月内避免弯腰搬重物，捡东西请屈膝下蹲。').waitFor();
    await detail.getByText('陈护士').waitFor();
    await settle(nursePage);
    await screenshot(nursePage, 'consult-detail');
    await detail.getByRole('button', { name: /^取\s?消$/ }).click();
    await detail.waitFor({ state: 'hidden' });

    // A question she hears on the telephone is entered for the patient.
    await nursePage.getByRole('button', { name: '代患者提问' }).click();
    const add = nursePage.getByRole('dialog', { name: '代患者提问' });
    await settle(nursePage);
    await add.getByLabel('患者').click();
    await nursePage.locator('.ant-select-dropdown:visible').getByText(`${code} 孙晓燕`).click();
    await add.getByLabel('咨询标题').fill('复查需要空腹吗');
    await add.getByLabel('咨询内容').fill('下周复查抽血是否需要空腹？');
    await add.getByRole('button', { name: /^确\s?定$/ }).click();
    await nursePage.locator('.ant-message-notice', { hasText: '新增成功' }).waitFor();
    const added = nursePage.locator('.ant-table-row', { hasText: '复查需要空腹吗' });
    await added.getByText('待回复').waitFor();
    await added.getByText('工作人员代提').waitFor();
  });

  it('SHELL-33: the top-bar search finds the patient by code and opens her casebook', async () => {
    const box = nursePage.getByLabel('全局搜索');
    await box.fill(code);
    const option = nursePage.locator('.ant-select-dropdown:visible .global-search-hit[data-type="subject"]', {
      hasText: code,
    });
    await option.waitFor();
    await nursePage.locator('.ant-select-dropdown:visible', { hasText: '孙晓燕' }).waitFor();
    await screenshot(nursePage, 'global-search');
    await option.click();
    await nursePage.waitForURL(`**/crf/${subjectRecordId}`);
  });
});
