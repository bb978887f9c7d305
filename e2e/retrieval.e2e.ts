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
const TEMPLATE = '高血压男性或回族';

let platform: Platform;
let browser: Browser;
let page: Page;
let studyId: number;
const codes: Record<string, string> = {};
const records: Record<string, number> = {};

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

async function api<T>(method: string, path: string, token: string | null, body?: unknown): Promise<T> {
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
  api<{ token: string; user: { userId: number } }>('POST', '/api/ignore/sys/login', null, {
    username: ADMIN,
    password,
    code: '',
    uuid: '',
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

  // Three patients: a man with high blood pressure, a woman of 回族 with normal pressure, a man with normal pressure.
  const patients: Array<[string, number, string, number, string]> = [
    ['张建国', 1, '1958-04-12', 152, 'han'],
    ['李秀英', 0, '1966-09-03', 118, 'hui'],
    ['王志强', 1, '1971-02-20', 126, 'han'],
  ];
  for (const [name, gender, birth, sbp, ethnic] of patients) {
    const patient = await api<{ subjectRecordId: number; identificationCode: string }>(
      'POST',
      '/api/business/subject',
      token,
      { studyId, subjectName: name, gender, birth, diseaseCode: 'LSS' },
    );
    codes[name] = patient.identificationCode;
    records[name] = patient.subjectRecordId;
    const save = (crf: string, values: object) =>
      api('PUT', '/api/v3/business/crf', token, {
        subjectRecordId: patient.subjectRecordId,
        crfId: crfId(crf),
        version: 0,
        values,
      });
    await save('生命体征', { sbp, dbp: 80, hr: 72 });
    await save('人口学资料', { ethnic });
  }
  // 植入物 (a list group of 手术记录): 张建国 six pedicle screws and a cage, 李秀英 four screws.
  const surgery = (name: string, implants: object[]) =>
    api('PUT', '/api/v3/business/crf', token, {
      subjectRecordId: records[name],
      crfId: crfId('手术记录'),
      version: 0,
      values: { implants },
    });
  await surgery('张建国', [
    { implant_name: '椎弓根螺钉', implant_qty: 6 },
    { implant_name: '椎间融合器', implant_qty: 1 },
  ]);
  await surgery('李秀英', [{ implant_name: '椎弓根螺钉', implant_qty: 4 }]);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const group = (n: number) => page.locator('.retrieval-group').nth(n);
const openDropdown = () => page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').last();

/** Picks a field in a condition row's tree picker by typing part of its title and clicking the first match. */
async function pickField(row: Locator, search: string, node: string) {
  await row.locator('.retrieval-field').click();
  await page.keyboard.type(search);
  const option = openDropdown().locator('.ant-select-tree-node-content-wrapper', { hasText: node }).first();
  await option.waitFor();
  await settle(page);
  await option.click();
}

async function pickOption(select: Locator, label: string) {
  await select.click();
  const option = openDropdown()
    .locator('.ant-select-item-option')
    .filter({ hasText: new RegExp(`^${label}$`) });
  await option.waitFor();
  await settle(page);
  await option.click();
  await openDropdown().waitFor({ state: 'hidden' });
}

async function resultCodes(): Promise<string[]> {
  return page.locator('.retrieval-results .ant-table-tbody tr.ant-table-row td:nth-child(2)').allTextContents();
}

describe('数据检索', () => {
  it('SRCH-01/SRCH-02/SRCH-03: 数据检索 in the side menu builds a two-group search, counts and lists the right patients', async () => {
    // One page for the whole file: the later tests continue where this one leaves the page.
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
    await expectAccessible(page, 'retrieval-empty');

    // 条件组 1: 性别 等于 男 且 收缩压 大于 140.
    const first = group(0).locator('.retrieval-row').nth(0);
    await pickField(first, '性别', '性别');
    await pickOption(first.locator('.retrieval-operator'), '等于');
    await pickOption(first.getByLabel('性别 值'), '男');
    await group(0).getByRole('button', { name: '添加条件' }).click();
    const second = group(0).locator('.retrieval-row').nth(1);
    await pickField(second, '收缩压', '收缩压（mmHg）');
    await pickOption(second.locator('.retrieval-operator'), '大于');
    await second.getByLabel('收缩压 值').fill('140');

    // 或 条件组 2: 民族 等于 回族.
    await page.getByRole('button', { name: '添加条件组' }).click();
    const third = group(1).locator('.retrieval-row').nth(0);
    await pickField(third, '民族', '民族');
    await pickOption(third.locator('.retrieval-operator'), '等于');
    await pickOption(third.getByLabel('民族 值'), '回族');
    await page.locator('.retrieval-between').getByText('或', { exact: true }).click();

    // 收缩压 as a column beside the default 性别 and 年龄.
    await page.locator('.retrieval-columns-picker').click();
    await page.keyboard.type('收缩压');
    const column = openDropdown()
      .locator('.ant-select-tree-node-content-wrapper', { hasText: '收缩压（mmHg）' })
      .first();
    await column.waitFor();
    await settle(page);
    await column.click();
    await page.keyboard.press('Escape');

    await page
      .getByRole('button', { name: '检 索' })
      .or(page.getByRole('button', { name: '检索' }))
      .first()
      .click();
    await page.locator('.retrieval-count', { hasText: '共检索到 2 位患者' }).waitFor();
    await page.locator('.retrieval-results .ant-table-tbody tr.ant-table-row').nth(1).waitFor();
    expect((await resultCodes()).sort()).toEqual([codes['张建国'], codes['李秀英']].sort());
    const zhang = page.locator('.retrieval-results tr.ant-table-row', { hasText: codes['张建国']! });
    await zhang.getByText('152 mmHg').waitFor();
    await screenshot(page, 'retrieval-results');
    await expectAccessible(page, 'retrieval-results');
    expect(await cutTableCells(page)).toEqual([]);
  });

  it('SRCH-01: a result links into the patient’s casebook', async () => {
    await page.locator('.retrieval-results').getByRole('link', { name: codes['张建国'], exact: true }).click();
    await page.waitForURL(new RegExp(`/crf/${records['张建国']}`));
    await page.locator('.crf-sider .crf-patient-name-text', { hasText: '张建国' }).waitFor();
    await page.goBack();
    await page.waitForURL(`**/project/${studyId}/retrieval`);
  });

  it('SRCH-04: the search is saved as a shared template, and after a reload the template brings it back', async () => {
    // Coming back from the casebook finds the search as it was.
    await page.locator('.retrieval-count', { hasText: '共检索到 2 位患者' }).waitFor();
    expect(await page.locator('.retrieval-group').count()).toBe(2);
    await page.getByRole('button', { name: '保存为模板' }).click();
    const dialog = page.getByRole('dialog', { name: '保存为模板' });
    await dialog.waitFor();
    await settle(page);
    await dialog.getByLabel('模板名称').fill(TEMPLATE);
    await dialog.getByRole('switch', { name: '共享给项目成员' }).click();
    await dialog.getByRole('button', { name: /保\s*存/ }).click();
    await page.locator('.ant-message-notice', { hasText: '保存成功' }).waitFor();
    await dialog.waitFor({ state: 'hidden' });

    // A fresh page (the search kept for the browser tab is cleared by 重置), then the template.
    await page.reload();
    await page.getByRole('heading', { name: '数据检索' }).waitFor();
    await page
      .getByRole('button', { name: '重 置' })
      .or(page.getByRole('button', { name: '重置' }))
      .first()
      .click();
    expect(await page.locator('.retrieval-group').count()).toBe(1);
    await pickOption(page.getByLabel('检索模板'), `${TEMPLATE}（共享）`);
    await page.locator('.ant-message-notice', { hasText: `已载入模板“${TEMPLATE}”` }).waitFor();
    expect(await page.locator('.retrieval-group').count()).toBe(2);
    expect(await group(0).getByLabel('收缩压 值').inputValue()).toBe('140');
    await page
      .getByRole('button', { name: '检 索' })
      .or(page.getByRole('button', { name: '检索' }))
      .first()
      .click();
    await page.locator('.retrieval-count', { hasText: '共检索到 2 位患者' }).waitFor();
    await page.getByRole('button', { name: '删除模板' }).waitFor();
    await screenshot(page, 'retrieval-template-loaded');
    await expectAccessible(page, 'retrieval-template-loaded');
    expect(await cutTableCells(page)).toEqual([]);
  });

  it('SRCH-03: a condition on a list-group column (植入物 › 名称) finds the patients with such a row; two on the group hold in one row, and the column lists every row', async () => {
    await page
      .getByRole('button', { name: '重 置' })
      .or(page.getByRole('button', { name: '重置' }))
      .first()
      .click();
    const first = group(0).locator('.retrieval-row').nth(0);
    await pickField(first, '植入物', '植入物 › 名称');
    await pickOption(first.locator('.retrieval-operator'), '包含');
    await first.getByLabel('植入物 › 名称 值').fill('椎弓根');

    // Alone: both patients with a pedicle screw row.
    const search = () =>
      page
        .getByRole('button', { name: '检 索' })
        .or(page.getByRole('button', { name: '检索' }))
        .first()
        .click();
    await search();
    await page.locator('.retrieval-count', { hasText: '共检索到 2 位患者' }).waitFor();

    // 且 数量 大于 4 in the same group: the same row, so 李秀英's four screws do not count.
    await group(0).getByRole('button', { name: '添加条件' }).click();
    const second = group(0).locator('.retrieval-row').nth(1);
    await pickField(second, '数量', '植入物 › 数量');
    await pickOption(second.locator('.retrieval-operator'), '大于');
    await second.getByLabel('植入物 › 数量 值').fill('4');
    await group(0)
      .locator('.retrieval-same-row', { hasText: '“植入物”的多个条件以“且”连接时，须在同一行中同时满足' })
      .waitFor();

    await page.locator('.retrieval-columns-picker').click();
    await page.keyboard.type('植入物');
    const column = openDropdown()
      .locator('.ant-select-tree-node-content-wrapper', { hasText: '植入物 › 名称' })
      .first();
    await column.waitFor();
    await settle(page);
    await column.click();
    await page.keyboard.press('Escape');

    await search();
    await page.locator('.retrieval-count', { hasText: '共检索到 1 位患者' }).waitFor();
    expect(await resultCodes()).toEqual([codes['张建国']]);
    await page.locator('.retrieval-results tr.ant-table-row').getByText('椎弓根螺钉; 椎间融合器').waitFor();
    await page.locator('.retrieval-hint', { hasText: '列表组（表格）的多行按行顺序以“;”连接' }).waitFor();
    await screenshot(page, 'retrieval-list-group');
    await expectAccessible(page, 'retrieval-list-group');
    expect(await cutTableCells(page)).toEqual([]);
  });
});
