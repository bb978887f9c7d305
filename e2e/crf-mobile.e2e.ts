import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onTestFailed } from 'vitest';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { ADMIN, expectAccessible, launchBrowser, screenshot, platformUnderTest, type Platform } from './harness.js';
import { ADMIN_PASSWORD, callApi, loginApi, prepareAdmin } from './api.js';

/**
 * The CRF page on the screens nurses use on the ward: a phone (390×844) and a portrait tablet
 * (820×1180), both touch; and the list of refused items at desktop sizes.
 */

const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const TABLET: BrowserContextOptions = { viewport: { width: 820, height: 1180 }, hasTouch: true, isMobile: true };
const desktop = (width: number, height = 900): BrowserContextOptions => ({ viewport: { width, height } });

/** A 4×4 grey PNG: the server checks an upload's type by its content. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAADklEQVR4nGNoQAIMxHEAcFIYAYPG8BkAAAAASUVORK5CYII=',
  'base64',
);

let platform: Platform;
let browser: Browser;
let studyId: number;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

const login = (password: string) => loginApi(platform.baseUrl, ADMIN, password);

/** Each test works on a patient of its own, enrolled through the API. */
async function enrol(name: string): Promise<number> {
  const { token } = await login(ADMIN_PASSWORD);
  const patient = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', token, {
    studyId,
    subjectName: name,
    gender: 1,
    birth: '1960-03-08',
    diseaseCode: 'LSS',
  });
  return patient.subjectRecordId;
}

beforeAll(async () => {
  platform = await platformUnderTest();
  browser = await launchBrowser();
  studyId = (await prepareAdmin(platform.baseUrl)).studyId;
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function open(options: BrowserContextOptions): Promise<Page> {
  const context = await browser.newContext({ baseURL: platform.baseUrl, locale: 'zh-CN', ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  onTestFailed(async ({ task }) => {
    if (!page.isClosed()) {
      await screenshot(page, `failed-${task.name.slice(0, 50).replace(/[^\w\u4e00-\u9fff-]+/g, '_')}`);
    }
  });
  await page.goto('/login');
  await page.getByPlaceholder('请输入手机号').fill(ADMIN);
  await page.getByPlaceholder('请输入密码').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: '登 录' }).click();
  await page.waitForURL('**/studyList');
  return page;
}

const form = (page: Page) => page.locator('.crf-editor-form');
const formTitle = (page: Page, title: string) => page.locator('.crf-form-title', { hasText: title });
const messageText = (page: Page, text: string) => page.locator('.ant-message-notice', { hasText: text }).last();

async function settled(page: Page) {
  await page.waitForFunction(
    () =>
      !document.querySelector('[class*="-appear-active"], [class*="-enter-active"], .ant-zoom-appear, .ant-zoom-enter'),
  );
}

/** No part of the page sticks out sideways: nothing to scroll horizontally. */
async function expectNoSideways(page: Page) {
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
    body: document.body.scrollWidth,
  }));
  expect(widths.scroll).toBeLessThanOrEqual(widths.inner);
  expect(widths.body).toBeLessThanOrEqual(widths.inner);
}

/** 表单目录 in the top bar opens the tree; picking a form closes it and opens the form. */
async function pickForm(page: Page, title: string) {
  await page.locator('.top-bar').getByRole('button', { name: '表单目录' }).tap();
  const drawer = page.locator('.crf-tree-drawer .ant-drawer-content-wrapper');
  await drawer.waitFor();
  await settled(page);
  await drawer.locator('.crf-menu-form', { hasText: title }).tap();
  await formTitle(page, title).waitFor();
  await drawer.waitFor({ state: 'hidden' });
}

async function fill(scope: Locator, label: string, value: string) {
  const input = scope.getByLabel(label, { exact: true });
  await input.fill(value);
  await input.blur();
}

describe('CRF page on a phone and a tablet', () => {
  it('CRF-03/CRF-07 at 390×844: the tree is a drawer, fields are filled by touch (a text, a date from the calendar, a choice), saved, with no sideways scroll; an item opens its own panel and its history', async () => {
    const subjectRecordId = await enrol('李秀英');
    const page = await open(PHONE);
    await page.goto(`/crf/${subjectRecordId}`);
    await formTitle(page, '人口学资料').waitFor();
    // No sidebar and no item list beside the form: the form has the width.
    expect(await page.locator('.crf-sider').count()).toBe(0);
    expect(await page.locator('.crf-side-card').count()).toBe(0);
    await expectNoSideways(page);
    await screenshot(page, 'crf-mobile-390');

    await pickForm(page, '影像学检查');
    await pickForm(page, '人口学资料');

    // One column: the two fields of a two-column section sit one under the other.
    const sex = await form(page).locator('[data-item="sex"]').boundingBox();
    const birth = await form(page).locator('[data-item="birth"]').boundingBox();
    expect(birth!.y).toBeGreaterThan(sex!.y + sex!.height - 1);
    expect(birth!.width).toBeGreaterThan(300);

    await form(page).getByRole('radio', { name: '女' }).tap();
    await fill(form(page), '联系电话', '13900001234');

    // The date from the calendar: the text box does not take the focus (no keyboard over the panel).
    const birthInput = form(page).getByLabel('出生日期', { exact: true });
    await form(page).locator('[data-item="birth"]').getByRole('button', { name: '选择日期' }).tap();
    const calendar = page.locator('.crf-date-popup:not(.ant-picker-dropdown-hidden)');
    await calendar.waitFor();
    await settled(page);
    expect(
      await page.evaluate(
        () => document.activeElement?.tagName === 'INPUT' && !(document.activeElement as HTMLInputElement).readOnly,
      ),
    ).toBe(false);
    const box = await calendar.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390.5);
    await screenshot(page, 'crf-mobile-390-calendar');
    const firstOfMonth = await calendar.locator('td.ant-picker-cell-in-view').first().getAttribute('title');
    await calendar.locator(`td[title="${firstOfMonth}"]`).tap();
    await expect.poll(() => birthInput.inputValue()).toBe(firstOfMonth);

    // 保存 and 提交 stay on screen at the bottom.
    const actions = page.locator('.crf-editor-actions');
    const bar = await actions.boundingBox();
    expect(bar!.y + bar!.height).toBeLessThanOrEqual(844);
    await actions.getByRole('button', { name: '保存' }).tap();
    await messageText(page, '保存成功').waitFor();
    await expectNoSideways(page);

    // The other buttons of the bar are in 更多.
    await page.locator('.top-bar').getByRole('button', { name: '更多' }).tap();
    const menu = page.locator('.crf-bar-menu');
    for (const name of ['打印', 'CRF概览', '签名', '质疑', '题目标记']) {
      await menu.getByText(name, { exact: true }).waitFor();
    }
    await screenshot(page, 'crf-mobile-390-more');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });

    // The item's own control opens its panel; its history shows the value just saved.
    await form(page).getByRole('button', { name: '题目操作 联系电话' }).tap();
    const sheet = page.locator('.crf-item-sheet-drawer .ant-drawer-content-wrapper');
    await sheet.getByText('题目 · 联系电话').waitFor();
    await settled(page);
    await screenshot(page, 'crf-mobile-390-item-sheet');
    await sheet.getByRole('button', { name: '修改历史' }).tap();
    const history = page.locator('.ant-drawer-content-wrapper', { hasText: '修改历史 · 联系电话' });
    await history.locator('.crf-history-card .crf-history-new', { hasText: '13900001234' }).waitFor();
    const drawerBox = await history.boundingBox();
    expect(drawerBox!.width).toBeLessThanOrEqual(390.5);
    await screenshot(page, 'crf-mobile-390-history');
    await page.context().close();
  });

  it('UPL-01 at 390×844: an image is taken with the camera or chosen from the gallery; a repeatable form lists its records as cards that name their date', async () => {
    const subjectRecordId = await enrol('王桂兰');
    const page = await open(PHONE);
    await page.goto(`/crf/${subjectRecordId}`);
    await formTitle(page, '人口学资料').waitFor();

    await pickForm(page, '影像学检查');
    await form(page).getByRole('group', { name: '正侧位片' }).getByRole('button', { name: '上传图片' }).tap();
    const dialog = page.getByRole('dialog', { name: '添加图片' });
    const camera = dialog.locator('input[type=file][capture="environment"]');
    expect(await camera.getAttribute('accept')).toBe('image/*');
    expect(await dialog.locator('input[type=file]:not([capture])').getAttribute('accept')).toBe('image/*');
    await dialog.getByRole('button', { name: '拍照' }).waitFor();
    await dialog.getByRole('button', { name: '从相册选择' }).waitFor();
    await camera.setInputFiles({ name: 'film.png', mimeType: 'image/png', buffer: PNG });
    await dialog.getByText('上传时间').waitFor();
    await settled(page);
    await screenshot(page, 'crf-mobile-390-camera');
    await dialog.getByRole('button', { name: '确定' }).tap();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).tap();
    await messageText(page, '保存成功').waitFor();
    await expectNoSideways(page);

    await pickForm(page, '术后随访');
    await page.waitForURL(/crfDataRecordId=new/);
    await fill(form(page), '随访日期', '2026-01-15');
    await fill(form(page), 'ODI评分', '24');
    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).tap();
    await messageText(page, '保存成功').waitFor();
    const card = page.locator('.crf-record-card', { hasText: '第 1 条' });
    await card.waitFor();
    await expect.poll(() => card.locator('.crf-record-card-summary').textContent()).toContain('随访日期：2026-01-15');
    await expectNoSideways(page);
    await screenshot(page, 'crf-mobile-390-records');
    await page.context().close();
  });

  it('CRF-03 at 820×1180: a portrait tablet has the tree in a drawer and two columns; fields are filled and saved without sideways scroll; an item opens its history', async () => {
    const subjectRecordId = await enrol('赵志强');
    const page = await open(TABLET);
    await page.goto(`/crf/${subjectRecordId}`);
    await formTitle(page, '人口学资料').waitFor();
    expect(await page.locator('.crf-sider').count()).toBe(0);
    await screenshot(page, 'crf-tablet-820');

    await pickForm(page, '生命体征');
    // Two columns still fit: 测量时间 and 收缩压 share a line.
    const at = await form(page).locator('[data-item="vs_at"]').boundingBox();
    const sbp = await form(page).locator('[data-item="sbp"]').boundingBox();
    expect(Math.abs(at!.y - sbp!.y)).toBeLessThan(2);
    expect(sbp!.x).toBeGreaterThan(at!.x + at!.width - 1);
    expect(sbp!.width).toBeGreaterThan(300);

    await fill(form(page), '收缩压', '128');
    await fill(form(page), '舒张压', '82');
    await fill(form(page), '心率', '76');
    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).tap();
    await messageText(page, '保存成功').waitFor();
    await expectNoSideways(page);

    await form(page).getByRole('button', { name: '题目操作 收缩压' }).tap();
    const sheet = page.locator('.crf-item-sheet-drawer .ant-drawer-content-wrapper');
    await sheet.getByText('题目 · 收缩压').waitFor();
    await settled(page);
    await sheet.getByRole('button', { name: '修改历史' }).tap();
    const history = page.locator('.ant-drawer-content-wrapper', { hasText: '修改历史 · 收缩压' });
    await history.getByText('128 mmHg').waitFor();
    await screenshot(page, 'crf-tablet-820-history');
    await page.keyboard.press('Escape');
    await history.waitFor({ state: 'hidden' });
    await sheet.locator('.ant-drawer-close').tap();
    await sheet.waitFor({ state: 'hidden' });

    // SDV from the item list drawer: the tick is confirmed by a message.
    await page.locator('.top-bar').getByRole('button', { name: '更多' }).tap();
    await page.locator('.crf-bar-menu').getByText('进入SDV核查').tap();
    await page.locator('.top-bar').getByRole('button', { name: '更多' }).tap();
    await page.locator('.crf-bar-menu').getByText('题目标记').tap();
    const items = page.locator('.crf-items-drawer .ant-drawer-content-wrapper');
    await items.getByLabel('核查 收缩压').tap();
    await messageText(page, '已核查：收缩压').waitFor();
    await expect.poll(() => items.getByLabel('核查 收缩压').isChecked()).toBe(true);
    await screenshot(page, 'crf-tablet-820-sdv');
    await page.keyboard.press('Escape');
    await items.waitFor({ state: 'hidden' });
    // The item's own control carries the mark.
    await expect
      .poll(() => form(page).getByRole('button', { name: '题目操作 收缩压' }).getAttribute('data-mark'))
      .toBe('verified');
    await page.context().close();
  });
});

describe('CRF page at desktop sizes', () => {
  it('CRF-28: a refused submit names every item in error above the form, focuses the first, and each name leads to its item', async () => {
    const subjectRecordId = await enrol('孙丽');
    const page = await open(desktop(1366));
    await page.goto(`/crf/${subjectRecordId}`);
    await formTitle(page, '人口学资料').waitFor();
    await page.locator('.crf-menu-form', { hasText: '手术记录' }).click();
    await formTitle(page, '手术记录').waitFor();
    await fill(form(page), '手术时长', '120');
    await page.locator('.crf-editor-actions').getByRole('button', { name: '提交' }).click();
    const confirm = page.getByRole('dialog', { name: '确认提交该表单？' });
    await confirm.getByText('提交后再修改需填写修改原因').waitFor();
    await settled(page);
    await confirm.getByRole('button', { name: '提交', exact: true }).click();

    await messageText(page, '请将必填项填写完整：手术开始时间、手术方式、手术节段').waitFor();
    const list = page.locator('.crf-error-list');
    for (const title of ['手术开始时间', '手术方式', '手术节段']) {
      await list.getByRole('button', { name: title }).waitFor();
    }
    // The first item named has the focus.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id ?? '')).toMatch(/-op_at$/);
    await screenshot(page, 'crf-desktop-1366-errors');

    await list.getByRole('button', { name: '手术节段' }).click();
    await expect
      .poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[data-item="op_levels"]'))))
      .toBe(true);
    await page.context().close();
  });

  it('a 1024 landscape tablet keeps the tree beside the form and opens the item panel on demand; 1366 and 1920 show both beside it', async () => {
    const subjectRecordId = await enrol('周明');
    for (const width of [1024, 1366, 1920]) {
      const page = await open(
        width === 1024 ? { ...TABLET, viewport: { width: 1024, height: 768 } } : desktop(width, 1000),
      );
      await page.goto(`/crf/${subjectRecordId}`);
      await formTitle(page, '人口学资料').waitFor();
      await page.locator('.crf-sider').waitFor();
      if (width === 1024) {
        expect(await page.locator('.crf-side-card').count()).toBe(0);
        await form(page).getByRole('button', { name: '题目操作 性别' }).waitFor();
        await page.locator('.top-bar').getByRole('button', { name: '题目标记' }).waitFor();
      } else {
        await page.locator('.crf-side-card').waitFor();
        expect(
          await form(page)
            .getByRole('button', { name: /^题目操作/ })
            .count(),
        ).toBe(0);
      }
      await expectNoSideways(page);
      await screenshot(page, `crf-desktop-${width}`);
      await page.context().close();
    }
  });
});

describe('the side menu on a phone', () => {
  it('at 390×844 the side menu is a drawer, closed until 展开菜单 opens it; choosing a page closes it', async () => {
    const page = await open(PHONE);
    expect(await page.locator('.app-sider').count()).toBe(0);
    await expectNoSideways(page);
    await page.locator('.top-bar').getByRole('button', { name: '展开菜单' }).tap();
    const drawer = page.locator('.app-sider-drawer .ant-drawer-content-wrapper');
    await drawer.waitFor();
    await settled(page);
    await screenshot(page, 'side-menu-phone-open');
    await expectAccessible(page, 'side-menu-phone-open');
    await drawer.getByRole('menuitem', { name: '系统管理' }).tap();
    await drawer.getByRole('menuitem', { name: '用户管理' }).tap();
    await page.waitForURL('**/sys/user');
    await drawer.waitFor({ state: 'hidden' });
    await page.locator('.top-bar').getByRole('button', { name: '展开菜单' }).waitFor();
    await page.context().close();
  });
});
