import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  settle,
  startPlatform,
  type Platform,
} from './harness.js';
import { ADMIN_PASSWORD, callApi, loginApi, prepareAdmin, signInAs } from './api.js';

/**
 * Accounts and sessions (issue 36) as an administrator and a person see them: 账号有效期 set in the user dialog
 * ends the account's sign-in; 系统设置 sets the idle limit; the shell warns 即将自动退出 a minute before and then
 * signs out, and the sign-in page says why. The idle wait runs on the browser's fake clock (Playwright's
 * page.clock), so nothing here waits real minutes: each step waits for what the page shows.
 */
const MONITOR = { userName: '13700000081', name: '外部监查员', password: 'Monitor@2024' };

let platform: Platform;
let browser: Browser;
let admin: string;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

/** A day in Asia/Shanghai, `offset` days from today (the zone the account's expiry is read in). */
function shanghaiDay(offset: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(
    new Date(Date.now() + offset * 86_400_000),
  );
}

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin } = await prepareAdmin(platform.baseUrl));
  const initial = 'Start@2024';
  await api('POST', '/api/system/user', admin, {
    userName: MONITOR.userName,
    password: initial,
    name: MONITOR.name,
    deptId: 1,
    roleIds: [1],
  });
  const first = await loginApi(platform.baseUrl, MONITOR.userName, initial);
  await api('PUT', '/api/system/user/password', first.token, {
    userId: first.user.userId,
    oldPassword: initial,
    newPassword: MONITOR.password,
  });
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('账号有效期', () => {
  it('the administrator sets an expiry in the user dialog; the list marks it 已过期 and the monitor is refused at sign-in', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page);
    await page.goto('/sys/user');
    await page.locator('.page-title:visible', { hasText: '用户管理' }).waitFor();
    const row = page.locator('.ant-table-row').filter({ hasText: MONITOR.userName });
    await row.waitFor();
    await row.getByText('修改', { exact: true }).click();
    const dialog = page.getByRole('dialog', { name: '修改用户' });
    await dialog.waitFor();
    await settle(page);
    // The contract ended yesterday.
    const yesterday = shanghaiDay(-1);
    const picker = dialog.getByLabel('账号有效期');
    await picker.click();
    await picker.fill(yesterday);
    await picker.press('Enter');
    await expect.poll(() => picker.inputValue()).toBe(yesterday);
    await dialog.getByRole('button', { name: /确\s*定/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByText(yesterday).waitFor();
    await row.getByText('已过期', { exact: true }).waitFor();
    await screenshot(page, 'account-expired-in-list');
    await expectAccessible(page, 'account-expired-in-list');
    await page.context().close();

    const monitor = await newPage(browser, platform.baseUrl);
    await monitor.goto('/login');
    await monitor.getByPlaceholder('请输入手机号').fill(MONITOR.userName);
    await monitor.getByPlaceholder('请输入密码').fill(MONITOR.password);
    await monitor.getByRole('button', { name: '登 录' }).click();
    await monitor.locator('.ant-message-notice', { hasText: '账号已过期，请联系管理员' }).waitFor();
    expect(new URL(monitor.url()).pathname).toBe('/login');
    await screenshot(monitor, 'account-expired-sign-in');
    await monitor.context().close();
  });
});

describe('idle sign-out', () => {
  it('系统设置 sets the idle limit; the shell warns 即将自动退出 a minute before, 继续使用 carries on, then it signs out and says why', async () => {
    const page = await newPage(browser, platform.baseUrl);
    // The page's timers and Date run on a clock the test moves; it must be installed before the app loads.
    await page.clock.install();
    await signInAs(page);
    await page.goto('/sys/settings');
    await page.locator('.page-title:visible', { hasText: '系统设置' }).waitFor();
    const idle = page.getByLabel('无操作自动退出（分钟）');
    await expect.poll(() => idle.inputValue()).toBe('30');
    await idle.fill('2');
    await page.getByRole('button', { name: /保\s*存/ }).click();
    await page.locator('.ant-message-notice', { hasText: '保存成功' }).waitFor();
    // Audited: the change with its old and new value is listed under 修改记录.
    await page.getByRole('row').filter({ hasText: '无操作自动退出（分钟）' }).filter({ hasText: '30' }).waitFor();
    await screenshot(page, 'system-settings');
    await expectAccessible(page, 'system-settings');

    // The limit reaches the shell with the user information (read again after saving, and on every load).
    await Promise.all([page.waitForResponse((res) => res.url().includes('/api/sys/login/getInfo')), page.reload()]);
    await page.locator('.page-title:visible', { hasText: '系统设置' }).waitFor();
    const warning = page.getByRole('dialog', { name: '即将自动退出' });
    // The shell arms its timer once the user information is in: the clock moves in steps until the warning shows
    // (a minute after the timer started, well before the two-minute limit).
    for (let step = 0; step < 9 && !(await warning.isVisible()); step += 1) await page.clock.fastForward('00:10');
    await warning.waitFor();
    await screenshot(page, 'idle-warning');
    await warning.getByRole('button', { name: '继续使用' }).click();
    await warning.waitFor({ state: 'detached' });

    await page.clock.fastForward('01:01');
    await warning.waitFor();
    await page.clock.fastForward('01:00');
    await page.waitForURL('**/login');
    await page.getByRole('alert').filter({ hasText: '长时间未操作，已自动退出，请重新登录' }).waitFor();
    await screenshot(page, 'idle-signed-out');
    await expectAccessible(page, 'idle-signed-out');

    // Signing in again works, and the notice goes with the new session.
    await signInAs(page);
    expect(await page.getByText('长时间未操作，已自动退出，请重新登录').count()).toBe(0);
    await page.context().close();

    const { token } = await loginApi(platform.baseUrl, '13800000000', ADMIN_PASSWORD);
    await api('PUT', '/api/system/security-settings', token, {
      passwordMaxAgeDays: 90,
      passwordHistoryCount: 5,
      idleTimeoutMinutes: 30,
    });
  });
});
