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

const PASSWORD = 'Token@2024';

let platform: Platform;
let browser: Browser;
let page: Page;
let bearer: string;
let patientCode: string;
let apiToken: string;

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

/** A REDCap client: a form-encoded POST with the token, as REDCap's API documentation describes. */
function redcap(params: Record<string, string>) {
  return fetch(`${platform.baseUrl}/api/redcap`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
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
  const studies = await api<{ list: Array<{ id: number }> }>('GET', '/api/business/study/list');
  const patient = await api<{ identificationCode: string }>('POST', '/api/business/subject', {
    studyId: studies.list[0]!.id,
    subjectName: '钱七',
    gender: 0,
    birth: '1962-07-01',
    diseaseCode: 'LSS',
  });
  patientCode = patient.identificationCode;
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('REDCap API token on the personal page', () => {
  it('signs in and creates a token: shown once, with a copy button and the warning', async () => {
    page = await newPage(browser, platform.baseUrl);
    await page.goto('/login');
    await page.getByPlaceholder('请输入手机号').fill(ADMIN);
    await page.getByPlaceholder('请输入密码').fill(PASSWORD);
    await page.getByRole('button', { name: '登 录' }).click();
    await page.locator('.top-bar').waitFor();
    await page.locator('.top-bar-user').click();
    await page.getByRole('button', { name: '个人信息' }).click();
    await page.getByRole('tab', { name: 'API令牌' }).click();
    await page.getByText('暂无API令牌').waitFor();
    await page.getByRole('combobox', { name: '项目' }).click();
    await page.locator('.ant-select-item-option', { hasText: '腰椎管狭窄症手术登记研究（示例）' }).click();
    await page.getByRole('button', { name: '创建令牌' }).click();
    const shown = page.getByTestId('new-api-token');
    await shown.waitFor();
    apiToken = (await shown.textContent())!.trim();
    expect(apiToken).toMatch(/^[0-9A-F]{32}$/);
    await page.getByText('令牌只显示这一次，请立即复制并妥善保存，关闭后无法再次查看').waitFor();
    expect(await page.getByRole('button', { name: /复制/ }).count()).toBeGreaterThan(0);
    await page.getByRole('cell', { name: '有效' }).waitFor();
    await settle(page);
    await screenshot(page, 'api-token-created');
    await expectAccessible(page, 'api-token-created');
  });

  it('a REDCap client exports records with the token', async () => {
    const res = await redcap({ token: apiToken, content: 'record', format: 'json', type: 'flat' });
    expect(res.status).toBe(200);
    const rows = (await res.json()) as Array<Record<string, string>>;
    expect(rows.some((r) => r.record_id === patientCode)).toBe(true);
  });

  it('撤销 asks first, then the token is refused', async () => {
    await page.getByRole('button', { name: '撤销' }).click();
    await page.getByText('撤销后使用该令牌的程序将无法再访问，确定撤销？').waitFor();
    await settle(page);
    await screenshot(page, 'api-token-revoke-confirm');
    await page.locator('.ant-popconfirm').getByRole('button', { name: '撤销' }).click();
    await page.getByRole('cell', { name: '已撤销' }).waitFor();
    await expect(page.getByTestId('new-api-token').count()).resolves.toBe(0);
    await settle(page);
    await screenshot(page, 'api-token-revoked');
    const res = await redcap({ token: apiToken, content: 'record', format: 'json' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBeTruthy();
  });
});
