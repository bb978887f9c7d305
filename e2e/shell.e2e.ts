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
  platformUnderTest,
  type Platform,
} from './harness.js';
import { closeMore, cutTableCells, openMore } from './tables.js';

const ADMIN_PASSWORD = 'Admin@2024';
const NURSE = '13912345678';

let platform: Platform;
let browser: Browser;

beforeAll(async () => {
  platform = await platformUnderTest();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function signIn(page: Page, userName: string, password: string) {
  await page.goto('/login');
  await page.getByPlaceholder('请输入手机号').fill(userName);
  await page.getByPlaceholder('请输入密码').fill(password);
  await page.getByRole('button', { name: '登 录' }).click();
}

/** The forced change after a first sign-in: the dialog stays until the password is changed. */
async function changeForcedPassword(page: Page, oldPassword: string, newPassword: string) {
  const dialog = page.getByRole('dialog');
  await dialog.getByText('修改密码', { exact: true }).waitFor();
  await page.keyboard.press('Escape');
  await dialog.getByLabel('原始密码').waitFor();
  expect(await dialog.getByRole('button', { name: '取消' }).count()).toBe(0);
  await dialog.getByLabel('原始密码').fill(oldPassword);
  await dialog.getByLabel('新密码').fill(newPassword);
  await dialog.getByLabel('确认密码').fill(newPassword);
  await dialog.getByRole('button', { name: '确定' }).click();
  await page.locator('.ant-message-notice', { hasText: '修改成功' }).last().waitFor();
  await dialog.waitFor({ state: 'detached' });
}

async function openMenu(page: Page, group: string, item: string) {
  const sider = page.locator('.app-sider');
  // Judge the group open or closed once the sider is there and still, not while the page is loading.
  await sider.getByText(group, { exact: true }).waitFor();
  await settle(page);
  if (!(await sider.getByText(item, { exact: true }).isVisible())) {
    await sider.getByText(group, { exact: true }).click();
    await settle(page);
  }
  await sider.getByText(item, { exact: true }).click();
  // The new page is on screen once its title shows (the previous one stays while it loads).
  await page.locator('.page-title:visible', { hasText: item }).waitFor();
}

async function pick(page: Page, label: string, option: string) {
  await page.getByRole('dialog').getByLabel(label).click();
  await page.locator('.ant-select-dropdown:visible').getByTitle(option, { exact: true }).first().click();
  await page.keyboard.press('Escape');
}

describe('shell and system administration', () => {
  it('SHELL-12/AUTH-10/SHELL-10: a visitor is sent to /login; the first sign-in must change the password, then lands on the study list', async () => {
    const page = await newPage(browser, platform.baseUrl);
    // The address a person types first: the root serves the app, which sends a visitor to sign in.
    await page.goto('/');
    await page.waitForURL('**/login');
    await page.goto('/sys/user');
    await page.waitForURL('**/login');
    await page.getByPlaceholder('请输入手机号').waitFor();
    await expectAccessible(page, 'login');
    await screenshot(page, 'shell-login');
    // A refused attempt first: its message must not stay over the forced change.
    await page.getByPlaceholder('请输入手机号').fill(ADMIN);
    await page.getByPlaceholder('请输入密码').fill('Wrong@123');
    await page.getByRole('button', { name: '登 录' }).click();
    await page.locator('.ant-message-notice', { hasText: '用户名或密码错误' }).waitFor();
    await page.getByPlaceholder('请输入密码').fill(INITIAL_PASSWORD);
    await page.getByRole('button', { name: '登 录' }).click();
    await page.waitForURL('**/studyList');
    const forced = page.getByRole('dialog');
    await forced.getByText('首次登录、密码已重置或密码已过期，请修改密码后继续使用').waitFor();
    await expect.poll(() => page.locator('.ant-message-notice').count()).toBe(0);
    await expectAccessible(page, 'forced-password-change');
    await screenshot(page, 'shell-forced-password-change');
    // 退出登录 is the one way out without a new password: back to /login, the session gone.
    await forced.getByRole('button', { name: '退出登录' }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await signIn(page, ADMIN, INITIAL_PASSWORD);
    await page.waitForURL('**/studyList');
    await changeForcedPassword(page, INITIAL_PASSWORD, ADMIN_PASSWORD);
    await page.locator('.page-title', { hasText: '项目列表' }).waitFor();
    await page
      .getByRole('link', { name: /^进入项目/ })
      .first()
      .waitFor();
    await expectAccessible(page, 'study-list');
    expect(await page.title()).toBe('项目列表');
    await screenshot(page, 'shell-study-list');
    await page.context().close();
  });

  it('SYS-04/SYS-06/SYS-12/VIS-12: the administrator builds a department, a role and a user; the user sees only what the role grants', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await page.waitForURL('**/studyList');

    await openMenu(page, '系统管理', '机构管理');
    await page.getByRole('row').filter({ hasText: '根机构' }).getByRole('button', { name: '新增下级' }).click();
    await page.getByRole('dialog').getByLabel('机构名称').fill('心内科');
    // A click while the dialog still zooms in can land beside the button on a loaded machine.
    await settle(page);
    await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: '心内科' }).first().waitFor();
    await expectAccessible(page, 'sys-organization');

    await openMenu(page, '系统管理', '角色管理');
    await page.getByRole('button', { name: '新增', exact: true }).click();
    const roleDialog = page.getByRole('dialog');
    await roleDialog.waitFor();
    await settle(page);
    await roleDialog.getByLabel('角色名称').fill('研究护士');
    await roleDialog.getByLabel('权限字符').fill('nurse');
    await roleDialog.getByText('项目列表', { exact: true }).click();
    // 用户管理 ticks its four buttons; untick two of them again.
    await roleDialog.getByText('用户管理', { exact: true }).click();
    await roleDialog.getByText('新增用户', { exact: true }).click();
    await roleDialog.getByText('修改用户', { exact: true }).click();
    await roleDialog.getByRole('button', { name: '确定' }).click();
    await roleDialog.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: '研究护士' }).first().waitFor();
    await expectAccessible(page, 'sys-role');

    await openMenu(page, '系统管理', '用户管理');
    await page.getByRole('button', { name: '新增', exact: true }).click();
    const userDialog = page.getByRole('dialog');
    // A click while the dialog still zooms in can land beside the button on a loaded machine.
    await userDialog.waitFor();
    await settle(page);
    await userDialog.getByRole('button', { name: '确定' }).click();
    for (const text of ['请输入用户名', '请输入密码', '请输入真实姓名', '请选择所属机构', '请选择所属职位']) {
      await userDialog.getByText(text).waitFor();
    }
    await expectAccessible(page, 'sys-user-dialog');
    await userDialog.getByLabel('用户名').fill('1391234567');
    await userDialog.getByText('手机号格式不正确').waitFor();
    await userDialog.getByLabel('用户名').fill(NURSE);
    await userDialog.getByLabel('密码').fill('Nurse@123');
    await userDialog.getByLabel('真实姓名').fill('李护士');
    await pick(page, '所属机构', '心内科');
    await pick(page, '所属职位', '研究护士');
    await userDialog.getByRole('button', { name: '确定' }).click();
    await page.locator('.ant-message-notice', { hasText: '新增成功' }).last().waitFor();
    await userDialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row').filter({ hasText: '李护士' });
    await row.waitFor();
    expect(await row.textContent()).toContain('心内科');
    expect(await row.getByRole('switch', { name: '启用 李护士' }).getAttribute('aria-checked')).toBe('true');
    await screenshot(page, 'shell-user-list');
    await expectAccessible(page, 'sys-user');
    // Every column in view beside the fixed 操作 column, at the common desktop widths.
    for (const width of [1366, 1920, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await expect.poll(() => cutTableCells(page)).toEqual([]);
      if (width !== 1440) await screenshot(page, `shell-user-list-${width}`);
    }

    await page.locator('.top-bar-user').click();
    await page.getByRole('button', { name: '退出登录' }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    await signIn(page, NURSE, 'Nurse@123');
    await page.waitForURL('**/studyList');
    await changeForcedPassword(page, 'Nurse@123', 'Nurse@2024');
    const sider = page.locator('.app-sider');
    expect(await sider.getByText('角色管理', { exact: true }).count()).toBe(0);
    await openMenu(page, '系统管理', '用户管理');
    const nurseRow = page.getByRole('row').filter({ hasText: '李护士' });
    await nurseRow.waitFor();
    // 删除 and 重置密码 are under 更多. Nobody deletes their own account; the nurse holds the delete permission
    // for the others, and 重置密码, not 修改.
    await (await openMore(page, nurseRow, '重置密码')).waitFor();
    expect(await page.locator('.ant-dropdown:visible').getByRole('menuitem', { name: '删除' }).count()).toBe(0);
    await closeMore(page);
    const remove = await openMore(page, page.getByRole('row').filter({ hasText: '系统管理员' }), '删除');
    expect(await remove.getAttribute('aria-disabled')).not.toBe('true');
    await closeMore(page);
    expect(await nurseRow.getByRole('button', { name: '修改' }).isEnabled()).toBe(false);
    expect(await page.getByRole('button', { name: '新增', exact: true }).isEnabled()).toBe(false);
    await nurseRow.getByRole('button', { name: '修改' }).locator('..').hover();
    await page.getByText('权限不足，请联系管理员').waitFor();
    await screenshot(page, 'shell-nurse-user-list');
    await page.context().close();
  });

  it('SHELL-26/SHELL-27/SHELL-29: tabs follow the visited pages; closing the active one goes to the last tab', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await page.waitForURL('**/studyList');
    await openMenu(page, '系统管理', '用户管理');
    await page.waitForURL('**/sys/user');
    await openMenu(page, '系统管理', '菜单管理');
    await page.waitForURL('**/sys/menu');
    await page.getByRole('row').filter({ hasText: '系统管理' }).first().waitFor();
    await expectAccessible(page, 'sys-menu');
    const tabs = page.locator('.tab-strip .ant-tabs-tab');
    await page.locator('.tab-strip').getByText('菜单管理', { exact: true }).waitFor();
    expect(await tabs.allInnerTexts()).toEqual(['项目列表', '用户管理', '菜单管理']);

    await page.locator('.tab-strip').getByText('菜单管理', { exact: true }).click({ button: 'right' });
    await settle(page);
    await page
      .locator('.ant-dropdown:not(.ant-dropdown-hidden)')
      .getByRole('menuitem', { name: '关闭', exact: true })
      .click();
    await page.waitForURL('**/sys/user');
    expect(await tabs.allInnerTexts()).toEqual(['项目列表', '用户管理']);

    await page.locator('.tab-strip').getByText('用户管理', { exact: true }).click({ button: 'right' });
    await settle(page);
    await page.locator('.ant-dropdown:not(.ant-dropdown-hidden)').getByRole('menuitem', { name: '关闭所有' }).click();
    await page.waitForURL('**/studyList');
    expect(await tabs.allInnerTexts()).toEqual(['项目列表']);
    await page.context().close();
  });

  it('SHELL-05/SHELL-06/SHELL-07/SHELL-21/SHELL-23/SHELL-24/SHELL-25: the top bar and navigation', async () => {
    const page = await newPage(browser, platform.baseUrl);
    const pageErrors: string[] = [];
    const consoleErrors: string[] = [];
    const visited: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname);
    });
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await page.waitForURL('**/studyList');
    const api = <T>(url: string) =>
      page.evaluate(
        async (path) =>
          (await (
            await fetch(path, { headers: { Authorization: `Bearer ${localStorage.getItem('token') ?? ''}` } })
          ).json()) as T,
        url,
      );

    // SHELL-21: the product title outside a study.
    const config = await api<{ data: Array<{ fieldName: string; fieldValue: string }> }>(
      '/api/v1/base/sysconfig/getbasesysconfiglist?key=systemtitle',
    );
    const productTitle = config.data.find((f) => f.fieldName === 'SystemTitle')!.fieldValue;
    await expect.poll(() => page.locator('.top-bar-title').textContent()).toBe(productTitle);

    // SHELL-23: the user popover.
    await page.locator('.top-bar-user').click();
    const popover = page.locator('.user-popover');
    await popover.waitFor();
    expect(await popover.locator('.user-popover-name').textContent()).toBe('系统管理员');
    expect(await popover.locator('.user-popover-remark').textContent()).toBe('平台初始管理员');
    for (const name of ['个人信息', '修改密码', '帮助与反馈', '退出登录']) {
      await popover.getByRole('button', { name }).waitFor();
    }
    await page.locator('.top-bar-user').click();
    await popover.waitFor({ state: 'hidden' });

    // SHELL-07: the progress bar starts on a navigation.
    await page.evaluate(() => {
      const w = window as unknown as { progressSeen: boolean };
      w.progressSeen = false;
      new MutationObserver(() => {
        if (document.getElementById('nprogress')) w.progressSeen = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    // A short window, so that the user list scrolls.
    await page.setViewportSize({ width: 1440, height: 360 });
    await openMenu(page, '系统管理', '用户管理');
    expect(await page.evaluate(() => (window as unknown as { progressSeen: boolean }).progressSeen)).toBe(true);

    // SHELL-05: going again to the page already shown raises nothing.
    await page.locator('.app-sider').getByText('用户管理', { exact: true }).click();
    await page.locator('.tab-strip').getByText('用户管理', { exact: true }).click();
    await settle(page);
    await page.waitForURL('**/sys/user');

    // SHELL-24: the bar is fixed from 75 px of scrolling on.
    await page.getByRole('row').nth(2).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)).toBeGreaterThan(100);
    await page.evaluate(() => window.scrollTo(0, 74));
    await page.waitForFunction(() => window.scrollY === 74);
    await settle(page);
    expect(await page.locator('.top-bar').getAttribute('class')).not.toContain('top-bar-fixed');
    await page.evaluate(() => window.scrollTo(0, 75));
    await page.locator('.top-bar.top-bar-fixed').waitFor();
    expect(await page.locator('.top-bar').evaluate((el) => getComputedStyle(el).position)).toBe('fixed');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.locator('.top-bar:not(.top-bar-fixed)').waitFor();

    // SHELL-06: a navigation starts the next page at the top.
    await page.evaluate(() => window.scrollTo(0, 100));
    await page.waitForFunction(() => window.scrollY === 100);
    const organization = page.locator('.app-sider').getByText('机构管理', { exact: true });
    if (!(await organization.isVisible())) {
      await page.locator('.app-sider').getByText('系统管理', { exact: true }).click();
      // The group slides open; a click while its items still move can land on the item beside it.
      await settle(page);
    }
    await organization.click();
    await page.waitForURL('**/sys/organization');
    await page.waitForFunction(() => window.scrollY === 0);

    // SHELL-21 and SHELL-25 inside a study: its name, then 日历, 随访提醒 and 退出登录 (to /).
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.locator('.tab-strip').getByText('项目列表', { exact: true }).click();
    await page.waitForURL('**/studyList');
    await page
      .getByRole('link', { name: /^进入项目/ })
      .first()
      .click();
    await page.waitForURL(/\/project\/\d+\//);
    const studyId = /\/project\/(\d+)\//.exec(page.url())![1]!;
    const studies = await api<{ data: { list: Array<{ id: number; studyName: string }> } }>(
      '/api/business/study/list?pageNum=1&pageSize=100',
    );
    const studyName = studies.data.list.find((study) => String(study.id) === studyId)!.studyName;
    await expect.poll(() => page.locator('.top-bar-title').textContent()).toBe(studyName);
    await page.locator('.top-bar-calendar').click();
    await page.waitForURL(`**/project/${studyId}/calendar`);
    await page.locator('.top-bar-follow').click();
    await page.waitForURL(`**/project/${studyId}/follow/record`);
    await page.locator('.top-bar-user').click();
    await page.locator('.user-popover').getByRole('button', { name: '退出登录' }).click();
    await page.waitForURL('**/login');
    expect(visited).toContain('/');

    expect(pageErrors).toEqual([]);
    expect(consoleErrors.filter((text) => /navigat|duplicate/i.test(text))).toEqual([]);
    await page.context().close();
  });

  it('SYS-25: the operation log shows what the administrator did, with user, method and outcome', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await page.waitForURL('**/studyList');
    await openMenu(page, '项目管理', '操作日志');
    // User administration belongs to no study: the administrator reads it in the whole log.
    await page.getByRole('checkbox', { name: '全部项目' }).check();
    await page.getByLabel('操作模块').fill('用户管理');
    await page.getByRole('button', { name: '搜索' }).click();
    const userAdded = page.getByRole('row').filter({ hasText: '新增' }).filter({ hasText: '系统管理员(13800000000)' });
    await userAdded.first().waitFor();
    await expectAccessible(page, 'operation-log');
    const text = await userAdded.first().textContent();
    expect(text).toContain('用户管理');
    expect(text).toContain('POST');
    expect(text).toContain('/api/system/user');
    expect(text).toContain('成功');

    await page.getByLabel('操作模块').fill('机构管理');
    await page.getByRole('button', { name: '搜索' }).click();
    await page.getByRole('row').filter({ hasText: '机构管理' }).filter({ hasText: '新增' }).first().waitFor();
    await page.getByRole('row').filter({ hasText: '机构管理' }).getByRole('button', { name: '详情' }).first().click();
    const detail = page.getByRole('dialog');
    await detail.getByText('操作对象').waitFor();
    await expectAccessible(page, 'operation-log-detail');
    // The log names what was acted on by id; the department's name stays out of it.
    expect(await detail.textContent()).not.toContain('心内科');
    await screenshot(page, 'shell-operation-log');
    await page.context().close();
  });
});
