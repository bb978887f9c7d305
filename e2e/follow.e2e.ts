import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
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
import { cutTableCells } from './tables.js';

const ADMIN_PASSWORD = 'Admin@2024';
const DEMO_STUDY = '腰椎管狭窄症手术登记研究（示例）';

let platform: Platform;
let browser: Browser;
let page: Page;
let token = '';
let studyId = 0;
let code = '';
/** The server's clock runs ahead by the milliseconds in this file (EDC_TEST_CLOCK_FILE). */
const clockFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'edc-clock-')), 'offset');

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${platform.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await res.json()) as Envelope<T>;
  if (envelope.code !== 200) throw new Error(`${method} ${path}: ${envelope.code} ${envelope.msg}`);
  return envelope.data;
}

const login = (password: string) =>
  api<{ token: string; user: { userId: number } }>('POST', '/api/ignore/sys/login', {
    username: ADMIN,
    password,
    code: '',
    uuid: '',
  });

/** The date `days` from today in Shanghai (the demo study's zone). */
function shanghaiDate(days: number): string {
  return new Date(Date.now() + 8 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
}

beforeAll(async () => {
  fs.writeFileSync(clockFile, '0');
  platform = await startPlatform({ clockFile });
  browser = await launchBrowser();
  const first = await login(INITIAL_PASSWORD);
  token = first.token;
  await api('PUT', '/api/system/user/password', {
    userId: first.user.userId,
    oldPassword: INITIAL_PASSWORD,
    newPassword: ADMIN_PASSWORD,
  });
  token = (await login(ADMIN_PASSWORD)).token;
  const studies = await api<{ list: Array<{ id: number; studyName: string }> }>(
    'GET',
    '/api/business/study/list?pageNum=1&pageSize=50',
  );
  studyId = studies.list.find((s) => s.studyName === DEMO_STUDY)!.id;
  const crfs = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`);
  // 项目设置 · 随访触发: the day of surgery (手术记录 · 手术开始时间), set as a study manager would.
  await api('PUT', '/api/v1/business/study/follow_trigger', {
    studyId,
    enabled: true,
    crfId: crfs.find((c) => c.title === '手术记录')!.id,
    itemName: 'op_at',
    offsetDays: 0,
  });
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const notice = (text: string) => page.locator('.ant-message-notice', { hasText: text }).last().waitFor();
const row = (text: string): Locator => page.locator('.ant-table-tbody tr', { hasText: text });

/** Picks an option of a multiple select, then closes its list by clicking the heading beside it. */
async function signIn() {
  await page.goto('/login');
  await page.getByPlaceholder('请输入手机号').fill(ADMIN);
  await page.getByPlaceholder('请输入密码').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: '登 录' }).click();
  await page.waitForURL('**/studyList');
}

/** Shows the visits of one patient on 随访记录 (searched by code). */
async function searchPatient(patientCode: string) {
  await page.goto(`/project/${studyId}/follow/record`);
  await page.getByLabel('患者编号/姓名').fill(patientCode);
  await page.getByRole('button', { name: /搜\s*索/ }).click();
  await expect
    .poll(() => page.locator('.ant-table-tbody tr.ant-table-row', { hasNotText: patientCode }).count())
    .toBe(0);
}

async function pickOption(field: Locator, option: string, heading: Locator) {
  await field.click();
  await settle(page);
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: option }).first().click();
  await heading.click();
  await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'hidden' });
}

describe('follow-up', () => {
  it('FOLLOW-02/FOLLOW-11: 随访计划 is in the menu; a plan with three visits is configured in its dialog', async () => {
    // One page for the whole file: the tests go on where the previous one left off.
    page = await newPage(browser, platform.baseUrl);
    await signIn();
    await page.goto(`/project/${studyId}/home`);
    await page.locator('.app-sider').getByText('随访管理', { exact: true }).click();
    // The group slides open; a click while its items still move can land on the item beside it.
    await settle(page);
    await page.locator('.app-sider').getByText('随访计划', { exact: true }).click();
    await page.waitForURL(/\/follow\/plan$/);
    await page.locator('.page-title:visible', { hasText: '随访计划' }).waitFor();
    await page.getByRole('button', { name: '新增计划' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('计划名称').waitFor();
    await settle(page);
    await dialog.getByLabel('计划名称').fill('术后随访计划');
    const visits: Array<[string, string]> = [
      ['术后1月', '1'],
      ['术后3月', '3'],
      ['术后6月', '6'],
    ];
    for (const [index, [name, offset]] of visits.entries()) {
      if (index > 0) await dialog.getByRole('button', { name: '添加访视' }).click();
      const card = dialog.locator('.ant-card').nth(index);
      await card.getByLabel('访视名称').fill(name);
      await card.getByLabel('距触发日期').fill(offset);
      await pickOption(card.getByLabel('随访表单'), '术后随访', card.locator('.ant-card-head-title'));
    }
    await settle(page);
    await screenshot(page, 'follow-plan-dialog');
    await expectAccessible(page, 'follow-plan-dialog');
    await dialog.getByRole('button', { name: '确定' }).click();
    await notice('新增成功');
    await row('术后随访计划').waitFor();
    expect(await row('术后随访计划').textContent()).toContain('术后1月、术后3月、术后6月');
    expect(await cutTableCells(page)).toEqual([]);
    await screenshot(page, 'follow-plan-list');
    await expectAccessible(page, 'follow-plan-list');
  });

  it('FOLLOW-08/FOLLOW-12: a patient operated on 120 days ago has the three visits on 随访记录 with their states', async () => {
    const patient = await api<{ subjectRecordId: number; identificationCode: string }>(
      'POST',
      '/api/business/subject',
      {
        studyId,
        subjectName: '随访患者',
        gender: 1,
        diseaseCode: 'LSS',
      },
    );
    code = patient.identificationCode;
    const crfs = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`);
    await api('PUT', '/api/v3/business/crf', {
      subjectRecordId: patient.subjectRecordId,
      crfId: crfs.find((c) => c.title === '手术记录')!.id,
      version: 0,
      values: { op_at: `${shanghaiDate(-120)} 09:00:00` },
    });
    await page.locator('.app-sider').getByText('随访记录', { exact: true }).click();
    await page.waitForURL(/\/follow\/record$/);
    await page.locator('.page-title:visible', { hasText: '随访记录' }).waitFor();
    // The visits are made after the save commits (the outbox): the list shows them once they are there.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: /搜\s*索/ }).click();
          return row(code).count();
        },
        { timeout: 20_000 },
      )
      .toBe(3);
    await row('术后1月').getByText('已超窗').waitFor();
    await row('术后3月').getByText('已超窗').waitFor();
    await row('术后6月').getByText('未到期').waitFor();
    expect(await cutTableCells(page)).toEqual([]);
    await screenshot(page, 'follow-record-list');
    await expectAccessible(page, 'follow-record-list');
  });

  it('FOLLOW-05/FOLLOW-13: the third visit is marked 失访 with a reason', async () => {
    await row('术后6月').getByRole('button', { name: '失访' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('标记失访').waitFor();
    // A click while the dialog still zooms in can miss on a loaded machine.
    await settle(page);
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.getByText('请填写原因').waitFor();
    await dialog.getByLabel('原因').fill('电话无法联系，家属告知已迁居外地');
    await settle(page);
    await screenshot(page, 'follow-lost-dialog');
    await expectAccessible(page, 'follow-lost-dialog');
    await dialog.getByRole('button', { name: '确定' }).click();
    await notice('操作成功');
    await row('术后6月').getByText('失访').first().waitFor();
    await row('术后6月').getByText('电话无法联系').waitFor();
    await screenshot(page, 'follow-record-lost');
  });

  it('FOLLOW-14: 填写 opens the first visit form; submitted late, the visit reads 超窗完成', async () => {
    await row('术后1月').getByRole('button', { name: '填写' }).click();
    await page.waitForURL(/\/crf\/\d+\?crfId=\d+&crfDataRecordId=new&followRecordCrfId=\d+/);
    const form = page.locator('.crf-editor-form');
    const date = form.getByLabel('随访日期', { exact: true });
    await date.fill(shanghaiDate(-1));
    await date.blur();
    await page.locator('.crf-editor-actions').getByRole('button', { name: '提交' }).click();
    const confirm = page.getByRole('dialog', { name: '确认提交该表单？' });
    await confirm.waitFor();
    await settle(page);
    await confirm.getByRole('button', { name: '提交', exact: true }).click();
    await page.locator('.ant-message-notice', { hasText: '提交成功' }).last().waitFor();
    // The sidebar lists the patient's visits with their states under the forms.
    const visits = page.locator('.crf-follow');
    await visits.getByText('术后6月').waitFor();
    await visits.getByText('失访').waitFor();
    // The form menu's refetch after the submit brings the visit's new state with it.
    await visits.getByText('超窗完成').waitFor();
    // The record list has just appeared: let its fade-in end, or a button is measured mid-transition.
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
    await screenshot(page, 'follow-crf-sidebar');
    await expectAccessible(page, 'follow-crf-sidebar');
    await page.goto(`/project/${studyId}/follow/record`);
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: /搜\s*索/ }).click();
          return row('术后1月').getByText('超窗完成').count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    await screenshot(page, 'follow-record-done');
  });

  it('FOLLOW-08: days pass on the server clock: the second visit of a patient operated on 80 days ago turns 已超窗', async () => {
    const patient = await api<{ subjectRecordId: number; identificationCode: string }>(
      'POST',
      '/api/business/subject',
      {
        studyId,
        subjectName: '第二位患者',
        gender: 0,
        diseaseCode: 'LSS',
      },
    );
    const crfs = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`);
    await api('PUT', '/api/v3/business/crf', {
      subjectRecordId: patient.subjectRecordId,
      crfId: crfs.find((c) => c.title === '手术记录')!.id,
      version: 0,
      values: { op_at: `${shanghaiDate(-80)} 09:00:00` },
    });
    await expect
      .poll(
        async () => {
          await searchPatient(patient.identificationCode);
          return row('术后3月').getByText('未到期').count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    // Twenty days later the 3-month visit (window 7 days each side of day 91 or 92) has passed.
    fs.writeFileSync(clockFile, String(20 * 86_400_000));
    // The sessions of the old day are long over: sign in again, as a person would the next morning.
    await signIn();
    await searchPatient(patient.identificationCode);
    await row('术后3月').getByText('已超窗').waitFor();
    await row('术后1月').getByText('已超窗').waitFor();
    await row('术后6月').getByText('未到期').waitFor();
    await screenshot(page, 'follow-record-days-later');
    await expectAccessible(page, 'follow-record-days-later');
  });

  it('FOLLOW-02: 随访概览 is in the menu: this week, waiting and overdue visits, completion per visit and per person; a count opens 随访记录 filtered', async () => {
    await page.locator('.app-sider').getByText('随访概览', { exact: true }).click();
    await page.waitForURL(/\/follow$/);
    await page.locator('.page-title:visible', { hasText: '随访概览' }).waitFor();
    // The first patient: 术后1月 超窗完成, 术后3月 已超窗, 术后6月 失访; the second: 术后1月 and 术后3月 已超窗.
    const overdue = page.getByRole('group', { name: '已超窗' });
    await overdue.locator('.ant-statistic-content-value', { hasText: '3' }).waitFor();
    const third = page.locator('.ant-table-tbody tr', { hasText: '术后3月' }).first();
    await third.waitFor();
    // 术后3月: two visits, both missed: a completion rate of 0%.
    expect(await third.locator('td').allInnerTexts()).toEqual(
      expect.arrayContaining(['术后随访计划', '术后3月', '2', '0%']),
    );
    await page.getByRole('group', { name: '完成率', exact: true }).waitFor();
    await settle(page);
    await screenshot(page, 'follow-overview');
    await expectAccessible(page, 'follow-overview');
    await overdue.getByRole('link', { name: '查看随访记录' }).click();
    await page.waitForURL(/\/follow\/record\?state=2$/);
    await expect.poll(() => page.locator('.ant-table-tbody tr.ant-table-row').count(), { timeout: 10_000 }).toBe(3);
    expect(await page.locator('.ant-table-tbody tr.ant-table-row', { hasNotText: '已超窗' }).count()).toBe(0);
  });
});
