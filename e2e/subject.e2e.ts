import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  ADMIN,
  INITIAL_PASSWORD,
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  platformUnderTest,
  type Platform,
} from './harness.js';
import { cutTableCells, pickMore } from './tables.js';

const ADMIN_PASSWORD = 'Admin@2024';
const DEMO_STUDY = '腰椎管狭窄症手术登记研究（示例）';

let platform: Platform;
let browser: Browser;
let homePath = '';

beforeAll(async () => {
  platform = await platformUnderTest();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function signIn(page: Page, userName: string, password: string) {
  onTestFailed(async () => {
    if (!page.isClosed()) await screenshot(page, 'subject-failed');
  });
  await page.goto('/login');
  await page.getByPlaceholder('请输入手机号').fill(userName);
  await page.getByPlaceholder('请输入密码').fill(password);
  await page.getByRole('button', { name: '登 录' }).click();
  await page.waitForURL('**/studyList');
}

async function changeForcedPassword(page: Page, oldPassword: string, newPassword: string) {
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('原始密码').waitFor();
  await dialog.getByLabel('原始密码').fill(oldPassword);
  await dialog.getByLabel('新密码').fill(newPassword);
  await dialog.getByLabel('确认密码').fill(newPassword);
  await dialog.getByRole('button', { name: '确定' }).click();
  await dialog.waitFor({ state: 'detached' });
}

async function notice(page: Page, text: string) {
  await page.locator('.ant-message-notice', { hasText: text }).last().waitFor();
}

/** Lets dialogs and drawers finish sliding in, so a screenshot shows them as a person sees them. */
async function settle(page: Page) {
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
}

async function openProjectMenu(page: Page, item: string) {
  await page.locator('.app-sider').getByText(item, { exact: true }).click();
}

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

/** Set-up a person would do in other pages (users, roles, staff), done through the API to keep this test on patients. */
async function api<T>(token: string | null, method: string, path: string, body?: unknown): Promise<Envelope<T>> {
  const res = await fetch(platform.baseUrl + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Envelope<T>;
}

function patientRow(page: Page, code: string): Locator {
  return page.locator('.keep-alive-page:visible').getByRole('row').filter({ hasText: code });
}

async function figure(page: Page, label: string): Promise<string> {
  return (
    (await page.getByRole('group', { name: label, exact: true }).locator('.home-figure-value').textContent()) ?? ''
  );
}

describe('subjects', () => {
  it('SUBJ-01/SUBJ-02/SUBJ-06/SUBJ-09/SUBJ-18/SUBJ-19/SUBJ-21/STUDY-09: a nurse enrols a patient in the demo study; the code is assigned', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, INITIAL_PASSWORD);
    await changeForcedPassword(page, INITIAL_PASSWORD, ADMIN_PASSWORD);

    await page.getByRole('link', { name: `进入项目 ${DEMO_STUDY}` }).click();
    await page.waitForURL(/\/project\/\d+\/home$/);
    homePath = new URL(page.url()).pathname;
    await page.locator('.page-title', { hasText: DEMO_STUDY }).waitFor();
    await page.getByRole('group', { name: '患者总数', exact: true }).waitFor();
    expect(await figure(page, '患者总数')).toBe('0');
    await expectAccessible(page, 'project-home');

    await openProjectMenu(page, '患者列表');
    await page.waitForURL(/\/project\/\d+\/subject$/);
    await page.locator('.page-title:visible', { hasText: '患者列表' }).waitFor();
    await page.getByRole('button', { name: '添加患者' }).click();

    const dialog = page.getByRole('dialog');
    await dialog.getByText('添加患者').first().waitFor();
    await dialog.getByText('编号由系统自动生成，本次将为 LSS-0001').waitFor();
    expect(await dialog.getByLabel('编号', { exact: true }).count()).toBe(0);
    await dialog.getByRole('button', { name: '确定' }).click();
    await notice(page, '请将必填项填写完整');
    for (const text of ['请输入患者姓名', '请选择患者性别', '请选择病种']) await dialog.getByText(text).waitFor();
    await screenshot(page, 'subject-add-rules');
    await expectAccessible(page, 'patient-dialog-rules');

    await dialog.getByLabel('患者姓名').fill('张三');
    await dialog.getByText('男', { exact: true }).click();
    await dialog.getByLabel('出生日期').click();
    await dialog.getByLabel('出生日期').fill('1960-03-15');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.getByLabel('年龄').inputValue()).toMatch(/^\d{2}$/);
    // The calendar by keyboard: ↓ enters it on the date, → moves a day, ← back, Enter takes it.
    await dialog.getByLabel('出生日期').click();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => dialog.getByLabel('出生日期').inputValue()).toBe('1960-03-16');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.getByLabel('出生日期').inputValue()).toBe('1960-03-15');
    await page.locator('.ant-picker-dropdown:visible').waitFor({ state: 'hidden' });
    await dialog.getByLabel('手机号').fill('12345');
    await dialog.getByText('请输入11位手机号码').waitFor();
    await dialog.getByLabel('手机号').fill('13912345678');
    await dialog.getByLabel('病种').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('腰椎管狭窄症', { exact: true }).click();
    await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'hidden' });
    await settle(page);
    await screenshot(page, 'subject-add-filled');
    await dialog.getByRole('button', { name: '确定' }).click();
    await notice(page, '添加成功');
    await dialog.waitFor({ state: 'detached' });

    const row = patientRow(page, 'LSS-0001');
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    for (const part of ['张三', '男', '13912345678', '腰椎管狭窄症', '0/6', '在组', '系统管理员']) {
      expect(text).toContain(part);
    }
    await screenshot(page, 'subject-list');
    await expectAccessible(page, 'subject-list');
    // The list lays itself out to the page: every column in view beside the fixed 操作 column from 1366 px up
    // (fields stacked where there is no room for a column each), one card per patient on a phone.
    for (const width of [1366, 1920, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await expect.poll(() => cutTableCells(page)).toEqual([]);
      const shown = (await row.textContent()) ?? '';
      for (const part of ['张三', '13912345678', '腰椎管狭窄症', '0/6', '在组', '系统管理员']) {
        expect(shown).toContain(part);
      }
      if (width !== 1440) await screenshot(page, `subject-list-${width}`);
    }
    // On a phone the side menu folds away into a drawer by itself, and is beside the page again when wider.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: '展开菜单' }).waitFor();
    await page.locator('.subject-card', { hasText: 'LSS-0001' }).waitFor();
    await expect.poll(() => cutTableCells(page)).toEqual([]);
    await screenshot(page, 'subject-list-390');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('button', { name: '收起菜单' }).waitFor();

    // 录入 opens the patient's casebook on the CRF page; back on the list the patient is still there.
    await row.getByRole('button', { name: '录入' }).click();
    await page.waitForURL(/\/crf\/\d+$/);
    await page.goBack();
    await page.waitForURL(/\/project\/\d+\/subject$/);
    await row.waitFor();
    await page.context().close();
  });

  it('SUBJ-07/SUBJ-08/SUBJ-09/SUBJ-25/SUBJ-26/SUBJ-27/SUBJ-28: view → edit the mobile, see it in 操作记录, withdraw, delete and restore', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await page.goto(homePath.replace(/home$/, 'subject'));
    const row = patientRow(page, 'LSS-0001');
    await row.waitFor();

    await row.getByRole('button', { name: '查看' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('查看患者').waitFor();
    await expect.poll(() => dialog.getByLabel('患者姓名').inputValue()).toBe('张三');
    expect(await dialog.getByLabel('手机号').isDisabled()).toBe(true);
    expect(await dialog.getByLabel('编号', { exact: true }).isDisabled()).toBe(true);
    await settle(page);
    await screenshot(page, 'subject-view');
    await dialog.getByRole('button', { name: '编辑' }).click();
    await dialog.getByText('编辑患者').waitFor();
    expect(await dialog.getByLabel('编号', { exact: true }).isDisabled()).toBe(true);
    expect(await dialog.getByLabel('编号', { exact: true }).inputValue()).toBe('LSS-0001');
    await dialog.getByLabel('手机号').fill('13700001111');
    await dialog.getByRole('button', { name: '确定' }).click();
    await notice(page, '修改成功');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await row.textContent()) ?? '').toContain('13700001111');

    await pickMore(page, row, '操作记录');
    const drawer = page.locator('.ant-drawer');
    await drawer.getByText('操作记录 · 张三（LSS-0001）').waitFor();
    const change = drawer.getByRole('row').filter({ hasText: '修改患者信息' });
    await change.waitFor();
    expect(await change.textContent()).toContain('手机号');
    // The trail records that the mobile changed, never the numbers (PIPL; docs/decisions.md).
    expect(await change.textContent()).toContain('139****5678 → 137****1111');
    await drawer.getByRole('row').filter({ hasText: '添加患者' }).filter({ hasText: '编号：LSS-0001' }).waitFor();
    await settle(page);
    await screenshot(page, 'subject-operates');
    await expectAccessible(page, 'subject-operates');
    await drawer.getByRole('button', { name: 'Close' }).or(drawer.locator('.ant-drawer-close')).first().click();
    await drawer.waitFor({ state: 'hidden' });

    await pickMore(page, row, '状态');
    const stateDialog = page.getByRole('dialog');
    await stateDialog.getByText('修改状态 · 张三').waitFor();
    await stateDialog.getByText('退出', { exact: true }).click();
    await stateDialog.getByRole('button', { name: '确定' }).click();
    await stateDialog.getByText('请填写退出原因').waitFor();
    await stateDialog.getByLabel('退出原因').fill('患者失访');
    await stateDialog.getByRole('button', { name: '确定' }).click();
    await notice(page, '操作成功');
    await stateDialog.waitFor({ state: 'detached' });
    await row.locator('.ant-tag', { hasText: '退出' }).waitFor();

    await pickMore(page, row, '删除');
    const removeDialog = page.getByRole('dialog');
    await removeDialog.getByText(/可随时恢复/).waitFor();
    await removeDialog.getByLabel('删除原因').fill('测试录入，需删除');
    await settle(page);
    await screenshot(page, 'subject-delete');
    await removeDialog.getByRole('button', { name: '确定' }).click();
    await notice(page, '删除成功');
    await row.waitFor({ state: 'detached' });

    await page.getByRole('switch', { name: '显示已删除' }).click();
    await row.waitFor();
    await row.locator('.ant-tag', { hasText: '已删除' }).waitFor();
    await row.getByRole('button', { name: '恢复' }).click();
    const restoreDialog = page.getByRole('dialog');
    await restoreDialog.getByLabel('恢复原因').fill('误删');
    await restoreDialog.getByRole('button', { name: '确定' }).click();
    await notice(page, '恢复成功');
    await row.waitFor({ state: 'detached' });
    await page.getByRole('switch', { name: '显示已删除' }).click();
    await row.waitFor();

    await pickMore(page, row, '操作记录');
    await drawer.getByRole('row').filter({ hasText: '恢复患者' }).filter({ hasText: '误删' }).waitFor();
    await drawer.getByRole('row').filter({ hasText: '删除患者' }).filter({ hasText: '测试录入，需删除' }).waitFor();
    await drawer.getByRole('row').filter({ hasText: '修改状态' }).filter({ hasText: '在组 → 退出' }).waitFor();
    await settle(page);
    await screenshot(page, 'subject-operates-all');
    await page.context().close();
  });

  it('PIPL: a CRC without 查看患者身份信息 sees the patient masked in the list and the dialog; an edit keeps the hidden values', async () => {
    const admin = (
      await api<{ token: string }>(null, 'POST', '/api/ignore/sys/login', { username: ADMIN, password: ADMIN_PASSWORD })
    ).data.token;
    const studyId = (await api<{ list: Array<{ id: number }> }>(admin, 'GET', '/api/business/study/list')).data.list[0]!
      .id;
    const crc = '13600000001';
    const user = await api<{ userId: number }>(admin, 'POST', '/api/system/user', {
      userName: crc,
      password: 'Crc@2024',
      name: '王护士',
      deptId: 1,
      roleIds: [1],
    });
    expect(user.code, user.msg).toBe(200);
    // A system role without study:manage, so only the study role below decides what the CRC sees.
    const role = await api<{ roleId: number }>(admin, 'POST', '/api/system/role', {
      roleName: '研究护士',
      roleKey: 'crc',
      menuIds: [],
    });
    await api(admin, 'PUT', '/api/system/user', {
      userId: user.data.userId,
      userName: crc,
      name: '王护士',
      deptId: 1,
      roleIds: [role.data.roleId],
    });
    const studyRole = await api<{ id: number }>(admin, 'POST', '/api/system/studyRole', {
      studyId,
      roleName: 'CRC',
      permissions: ['btn:business.subject.add', 'btn:business.subject.edit'],
    });
    const staffed = await api(admin, 'POST', '/api/business/study_personnel', {
      studyId,
      userIds: [user.data.userId],
      studyRoleId: studyRole.data.id,
    });
    expect(staffed.code, staffed.msg).toBe(200);

    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, crc, 'Crc@2024');
    await changeForcedPassword(page, 'Crc@2024', 'Crc@2025');
    await page.goto(homePath.replace(/home$/, 'subject'));
    const row = patientRow(page, 'LSS-0001');
    await row.waitFor();
    await expect.poll(async () => (await row.textContent()) ?? '').toContain('137****1111');
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('张*');
    expect(text).not.toContain('张三');
    expect(text).not.toContain('13700001111');

    await row.getByRole('button', { name: '查看' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('查看患者').waitFor();
    await dialog.getByRole('button', { name: '编辑' }).click();
    await dialog.getByText('编辑患者').waitFor();
    await expect.poll(() => dialog.getByLabel('患者姓名').getAttribute('placeholder')).toBe('张*');
    expect(await dialog.getByLabel('患者姓名').inputValue()).toBe('');
    expect(await dialog.getByLabel('手机号').getAttribute('placeholder')).toBe('137****1111');
    expect(await dialog.getByText('已隐藏，不填写则保持不变').count()).toBeGreaterThanOrEqual(2);
    await dialog.getByLabel('病种').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('腰椎滑脱症', { exact: true }).click();
    await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'hidden' });
    await settle(page);
    await screenshot(page, 'subject-edit-masked');
    await dialog.getByRole('button', { name: '确定' }).click();
    await notice(page, '修改成功');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await row.textContent()) ?? '').toContain('腰椎滑脱症');
    await page.context().close();

    const stored = await api<{ subjectRecordId: number; subjectName: string; mobile: string; birth: string }>(
      admin,
      'GET',
      `/api/business/subject/${(await api<{ list: Array<{ id: number; identificationCode: string }> }>(admin, 'GET', `/api/v1/business/subjectRecord/list?studyId=${studyId}`)).data.list.find((r) => r.identificationCode === 'LSS-0001')!.id}`,
    );
    expect(stored.data).toMatchObject({ subjectName: '张三', mobile: '13700001111', birth: '1960-03-15' });
  });

  it('STUDY-09: the study home counts the patient; without a session it asks to sign in', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await page.goto(homePath);
    await page.getByRole('group', { name: '患者总数', exact: true }).waitFor();
    await expect.poll(() => figure(page, '患者总数')).toBe('1');
    expect(await figure(page, '退出')).toBe('1');
    expect(await figure(page, '本月入组')).toBe('1');
    await page.locator('.home-chart canvas').first().waitFor();
    await screenshot(page, 'subject-study-home');
    await expectAccessible(page, 'project-home-figures');
    await page.context().close();

    const visitor = await newPage(browser, platform.baseUrl);
    await visitor.goto(homePath);
    await visitor.getByText('请登录后查看').waitFor();
    await screenshot(visitor, 'subject-study-home-public');
    await expectAccessible(visitor, 'project-home-public');
    await visitor.getByRole('link', { name: '登录' }).click();
    await visitor.waitForURL('**/login');
    await visitor.context().close();
  });
});
