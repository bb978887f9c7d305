import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  ADMIN,
  INITIAL_PASSWORD,
  launchBrowser,
  newPage,
  screenshot,
  settle,
  startPlatform,
  type Platform,
} from './harness.js';

const ADMIN_PASSWORD = 'Admin@2024';
const DEMO_STUDY = '腰椎管狭窄症手术登记研究（示例）';

let platform: Platform;
let browser: Browser;

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

declare global {
  interface Window {
    __cspViolations: string[];
    __inlineRan?: boolean;
  }
}

/** Every Content-Security-Policy refusal the page meets, as the browser reports it. */
async function watchPolicy(page: Page): Promise<string[]> {
  const console: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) console.push(msg.text());
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(
        `${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`,
      );
    });
  });
  return console;
}

const violations = (page: Page) => page.evaluate(() => window.__cspViolations);

describe('the built app under its Content-Security-Policy', () => {
  it('signs in and opens administration, the study home (chart) and the patient list with no policy violation; an injected inline script is refused', async () => {
    const page = await newPage(browser, platform.baseUrl);
    onTestFailed(async () => {
      if (!page.isClosed()) await screenshot(page, 'security-failed');
    });
    const consoleMessages = await watchPolicy(page);

    const answer = await page.goto('/login');
    const csp = answer!.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);

    await page.getByPlaceholder('请输入手机号').fill(ADMIN);
    await page.getByPlaceholder('请输入密码').fill(INITIAL_PASSWORD);
    await page.getByRole('button', { name: '登 录' }).click();
    await page.waitForURL('**/studyList');
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('原始密码').fill(INITIAL_PASSWORD);
    await dialog.getByLabel('新密码').fill(ADMIN_PASSWORD);
    await dialog.getByLabel('确认密码').fill(ADMIN_PASSWORD);
    // A click while the dialog still zooms in can land beside the button on a loaded machine.
    await settle(page);
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'detached' });

    await page.goto('/sys/user');
    await page.locator('.page-title:visible', { hasText: '用户管理' }).waitFor();
    await page.locator('.ant-table-row').first().waitFor();

    await page.goto('/studyList');
    await page.getByRole('link', { name: `进入项目 ${DEMO_STUDY}` }).click();
    await page.waitForURL(/\/project\/\d+\/home$/);
    await page.getByRole('group', { name: '患者总数', exact: true }).waitFor();
    await page.locator('.app-sider').getByText('患者列表', { exact: true }).click();
    await page.locator('.page-title:visible', { hasText: '患者列表' }).waitFor();
    await page.getByRole('button', { name: '添加患者' }).click();
    await page.getByRole('dialog').getByLabel('出生日期').click();
    await page.locator('.ant-picker-dropdown:visible').waitFor();
    await screenshot(page, 'security-under-csp');

    expect(await violations(page)).toEqual([]);
    expect(consoleMessages).toEqual([]);

    // The policy is really in force: a script slipped into the page does not run.
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true';
      document.body.appendChild(script);
    });
    await expect.poll(() => violations(page)).toEqual([expect.stringMatching(/^script-src-elem inline /)]);
    expect(await page.evaluate(() => window.__inlineRan)).toBeUndefined();
    await page.context().close();
  });

  it('a page of the app can not be framed by another page', async () => {
    const page = await newPage(browser, platform.baseUrl);
    const consoleMessages = await watchPolicy(page);
    await page.goto('/login');
    await page.setContent(`<iframe src="${platform.baseUrl}/login"></iframe>`);
    await expect.poll(() => consoleMessages.some((m) => /frame-ancestors/.test(m))).toBe(true);
    await page.context().close();
  });
});
