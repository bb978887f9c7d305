import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  ADMIN,
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  platformUnderTest,
  type Platform,
} from './harness.js';
import { ADMIN_PASSWORD, callApi, loginApi, signInAs, prepareAdmin } from './api.js';
import { cutTableCells, pickMore } from './tables.js';

/** A 4×4 grey PNG: the server checks an upload's type by its content. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAADklEQVR4nGNoQAIMxHEAcFIYAYPG8BkAAAAASUVORK5CYII=',
  'base64',
);

/** Phone, tablet, laptop and desktop widths the audit and query views are looked at in. */
const WIDTHS = [390, 820, 1366, 1920] as const;

let platform: Platform;
let browser: Browser;
let studyId: number;
let subjectRecordId: number;
let identificationCode: string;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

const login = (password: string) => loginApi(platform.baseUrl, ADMIN, password);

beforeAll(async () => {
  platform = await platformUnderTest();
  browser = await launchBrowser();

  // The administrator's first sign-in must replace the initial password; the patient is enrolled
  // through the API so that this suite tests the casebook, not the patient list.
  const prepared = await prepareAdmin(platform.baseUrl);
  const { token } = prepared;
  studyId = prepared.studyId;
  const patient = await api<{ subjectRecordId: number; identificationCode: string }>(
    'POST',
    '/api/business/subject',
    token,
    {
      studyId,
      subjectName: '张建国',
      gender: 1,
      birth: '1958-04-12',
      diseaseCode: 'LSS',
    },
  );
  subjectRecordId = patient.subjectRecordId;
  identificationCode = patient.identificationCode;
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const signIn = (page: Page) => signInAs(page);

const form = (page: Page) => page.locator('.crf-editor-form');
const menuForm = (page: Page, title: string) => page.locator('.crf-menu-form', { hasText: title });
const messageText = (page: Page, text: string) => page.locator('.ant-message-notice', { hasText: text }).last();

async function openForm(page: Page, title: string) {
  await menuForm(page, title).click();
  await page.locator('.crf-form-title', { hasText: title }).waitFor();
}

async function stateOf(page: Page, title: string): Promise<string | null> {
  return menuForm(page, title).locator('.crf-state-icon').getAttribute('data-state');
}

async function waitState(page: Page, title: string, state: string) {
  await menuForm(page, title).locator(`.crf-state-icon[data-state="${state}"]`).waitFor();
}

async function save(page: Page) {
  await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).click();
}

/** 提交 asks first (确认提交该表单？) unless the form is already submitted. */
async function submit(page: Page) {
  await page.locator('.crf-editor-actions').getByRole('button', { name: '提交' }).click();
  const confirm = page.getByRole('dialog', { name: '确认提交该表单？' });
  await confirm.waitFor();
  await settled(page);
  await confirm.getByRole('button', { name: '提交', exact: true }).click();
}

/** Waits for antd's opening animations to end: on a loaded machine a click during the zoom can miss. */
async function settled(page: Page) {
  await page.waitForFunction(
    () =>
      !document.querySelector('[class*="-appear-active"], [class*="-enter-active"], .ant-zoom-appear, .ant-zoom-enter'),
  );
}

/**
 * Looks at a project page at a width. Below 768 px the shell turns the side menu into a closed drawer by
 * itself; from 768 to 992 px the menu is folded first, as a person on a tablet does; wider, it is open.
 */
async function atWidth(page: Page, width: number) {
  await page.setViewportSize({ width, height: 900 });
  if (width < 768) {
    await page.locator('.app-sider').waitFor({ state: 'detached' });
  } else {
    await page.locator('.app-sider').waitFor();
    const fold = page.getByRole('button', { name: '收起菜单' });
    const unfold = page.getByRole('button', { name: '展开菜单' });
    await fold.or(unfold).waitFor();
    if (width < 992 && (await fold.count()) > 0) await fold.click();
    if (width >= 992 && (await unfold.count()) > 0) await unfold.click();
    await (width < 992 ? unfold : fold).waitFor();
  }
  await settled(page);
}

async function fill(scope: Locator, label: string, value: string) {
  const input = scope.getByLabel(label, { exact: true });
  await input.fill(value);
  await input.blur();
}

describe('CRF page', () => {
  it('CRF-02/CRF-04/CRF-07/CRF-12: the casebook opens on its first form, with the patient, the QR code and the form tree', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.waitForURL(/crfId=\d+/);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    const sider = page.locator('.crf-sider');
    expect(await sider.locator('.crf-patient-name-text').textContent()).toBe('张建国');
    expect(await sider.locator('.crf-patient-code').textContent()).toBe(identificationCode);
    for (const title of ['人口学资料', '生命体征', '实验室检查', '影像学检查', '手术记录', '术后随访']) {
      expect(await stateOf(page, title)).toBe('0');
    }
    // 术后随访 is the repeatable form of the demo study.
    expect(await menuForm(page, '术后随访').getByLabel('可重复表单').count()).toBe(1);
    // The top bar carries the form's buttons and no personal menu.
    const bar = page.locator('.top-bar');
    for (const name of ['打印', '影像', '质疑', 'CRF概览', '签名']) await bar.getByRole('button', { name }).waitFor();
    expect(await bar.locator('.top-bar-user').count()).toBe(0);

    await sider.getByRole('button', { name: '查看患者二维码' }).click();
    const qr = page.getByRole('dialog', { name: '患者二维码' });
    await qr.getByText('人口学资料').waitFor();
    await qr.locator('img').waitFor();
    await screenshot(page, 'crf-patient-qr');
    await page.keyboard.press('Escape');
    await qr.waitFor({ state: 'detached' });

    await sider.getByRole('button', { name: '患者信息' }).click();
    const info = page.getByRole('dialog', { name: '患者信息' });
    await info.getByText('1958-04-12').waitFor();
    await page.keyboard.press('Escape');
    await info.waitFor({ state: 'detached' });

    await sider.getByRole('button', { name: '收起菜单' }).click();
    await page.waitForFunction(() => document.querySelector('.crf-sider')!.getBoundingClientRect().width === 50);
    await screenshot(page, 'crf-folded');
    await sider.getByRole('button', { name: '展开菜单' }).click();
    await page.waitForFunction(() => document.querySelector('.crf-sider')!.getBoundingClientRect().width === 282);
    await screenshot(page, 'crf-first-form');
    await expectAccessible(page, 'crf-page');
    await page.context().close();
  });

  it('VIS-02/CRF-03/CRF-22: skip logic shows an item, a save makes the form 未完成; 生命体征 is saved, then submitted (已提交)', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();

    expect(await form(page).getByLabel('每日包数').count()).toBe(0);
    // The item list's rows come right after the form's first render: wait for a shown item's row first.
    await page.locator('.crf-item-row[data-item="smoke"]').waitFor();
    expect(await page.locator('.crf-item-row[data-item="packs"]').count()).toBe(0);
    await form(page).getByRole('radio', { name: '目前吸烟' }).check();
    await form(page).getByLabel('每日包数').waitFor();
    // The item markers follow the skip logic too.
    await page.locator('.crf-item-row[data-item="packs"]').waitFor();
    await fill(form(page), '每日包数', '1.5');
    await form(page).getByRole('radio', { name: '男' }).check();
    await page.locator('.crf-editor-actions').getByText('有未保存的修改').waitFor();
    await save(page);
    await messageText(page, '保存成功').waitFor();
    await waitState(page, '人口学资料', '1');

    await openForm(page, '生命体征');
    await fill(form(page), '收缩压', '120');
    await fill(form(page), '舒张压', '80');
    await fill(form(page), '心率', '72');
    await save(page);
    await messageText(page, '保存成功').waitFor();
    await waitState(page, '生命体征', '1');
    await submit(page);
    await messageText(page, '提交成功').waitFor();
    await waitState(page, '生命体征', '2');
    await screenshot(page, 'crf-vitals-submitted');
    await expectAccessible(page, 'crf-vitals-submitted');
    await page.context().close();
  });

  it('CRF-22: a submitted form refuses a missing required value on the item, and a change needs a reason; the item history shows old → new', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '生命体征');
    await form(page).getByLabel('收缩压').waitFor();
    expect(await form(page).getByLabel('收缩压').inputValue()).toBe('120');

    await fill(form(page), '收缩压', '130');
    await save(page);
    const reason = page.getByRole('dialog', { name: '修改原因' });
    await reason.getByText('收缩压').waitFor();
    await settled(page);
    await reason.getByRole('button', { name: '确定' }).click();
    await reason.getByText('请填写修改原因').waitFor();
    await reason.getByLabel('修改原因').fill('复测血压');
    await screenshot(page, 'crf-reason-dialog');
    await reason.getByRole('button', { name: '确定' }).click();
    await messageText(page, '保存成功').waitFor();
    await waitState(page, '生命体征', '2');

    await page.locator('.crf-item-row[data-item="sbp"]').getByRole('button', { name: '修改历史 收缩压' }).click();
    const drawer = page.locator('.ant-drawer', { hasText: '修改历史 · 收缩压' });
    const change = drawer.locator('tr', { hasText: '复测血压' });
    await change.waitFor();
    expect(await change.locator('.crf-history-old').textContent()).toBe('120 mmHg');
    expect(await change.locator('.crf-history-new').textContent()).toBe('130 mmHg');
    // The action in Chinese, never its code.
    expect(await change.locator('.ant-tag').textContent()).toBe('保存');
    expect(await drawer.textContent()).not.toContain('item.update');
    await screenshot(page, 'crf-item-history');
    await page.context().close();
  });

  it('WID-15: in 手术记录 two 植入物 rows get their 金额 = 数量 × 单价', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '手术记录');
    const implants = form(page).getByRole('group', { name: '植入物' });
    await implants.getByRole('button', { name: '添加一行' }).click();
    await implants.getByRole('button', { name: '添加一行' }).click();
    const rows = implants.locator('.crf-list-row');
    await fill(rows.nth(0), '名称', '椎弓根螺钉');
    await fill(rows.nth(0), '数量', '4');
    await fill(rows.nth(0), '单价', '1200');
    await fill(rows.nth(1), '名称', '融合器');
    await fill(rows.nth(1), '数量', '1');
    await fill(rows.nth(1), '单价', '3500.5');
    await expect.poll(() => rows.nth(0).getByLabel('金额').inputValue()).toBe('4800');
    await expect.poll(() => rows.nth(1).getByLabel('金额').inputValue()).toBe('3500.5');
    await save(page);
    await messageText(page, '保存成功').waitFor();
    await screenshot(page, 'crf-surgery-implants');
    await expectAccessible(page, 'crf-surgery');
    await page.context().close();
  });

  it('QRY-17/QRY-18/QRY-19/CRF-08: a query on a submitted item turns the form to 存在质疑; replied and closed it is 已提交 again', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '生命体征');
    await form(page).getByLabel('心率').waitFor();

    await page.locator('.top-bar').getByRole('button', { name: '质疑' }).click();
    const picker = page.getByRole('dialog', { name: '选择质疑题目' });
    await picker.getByLabel('质疑题目').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('心率（生命体征）').click();
    await picker.getByRole('button', { name: '确定' }).click();
    await picker.waitFor({ state: 'detached' });

    const start = page.getByRole('dialog', { name: '发起质疑' });
    await start.getByLabel('题目').waitFor();
    expect(await start.getByLabel('当前值').inputValue()).toBe('72 次/分');
    await settled(page);
    await start.getByRole('button', { name: '发起质疑' }).click();
    await start.getByText('请输入质疑内容').waitFor();
    await start.getByLabel('质疑内容').fill('心率与原始病历不符，请核实');
    await start.getByRole('button', { name: '发起质疑' }).click();
    await messageText(page, '开启质疑成功').waitFor();
    const thread = page.getByRole('dialog', { name: '质疑记录' });
    await thread.getByText('心率与原始病历不符，请核实').waitFor();
    await waitState(page, '生命体征', '9');
    await screenshot(page, 'crf-query-opened');
    await expectAccessible(page, 'crf-query-dialog');

    // The thread names the item by its title, the value with its unit, the form and the visit.
    const head = thread.locator('.doubt-head');
    for (const text of ['心率', '72 次/分', '生命体征', '基线']) {
      await head.getByText(text, { exact: true }).first().waitFor();
    }
    // Dismissing the dialog is 取消 (or ×) only: nothing beside the query actions reads 关闭.
    expect(
      await thread
        .locator('.ant-modal-body, .ant-modal-footer')
        .getByRole('button', { name: '关闭', exact: true })
        .count(),
    ).toBe(0);

    await thread.getByRole('button', { name: '回复质疑' }).click();
    const reply = thread.getByRole('region', { name: '回复质疑' });
    await reply.getByRole('button', { name: '提交回复' }).click();
    await thread.getByText('请输入回复内容').waitFor();
    await reply.getByLabel('回复内容').fill('已核对原始病历，心率72无误');
    await reply.getByRole('button', { name: '提交回复' }).click();
    await messageText(page, '回复质疑成功').waitFor();
    await thread.locator('.doubt-message[data-kind="reply"]').waitFor();

    await thread.getByRole('button', { name: '关闭质疑' }).click();
    const close = thread.getByRole('region', { name: '关闭质疑' });
    await close.getByRole('button', { name: '确认关闭质疑' }).click();
    await thread.getByText('请输入关闭原因').waitFor();
    await close.getByLabel('关闭原因').fill('核实无误');
    await settled(page);
    await screenshot(page, 'crf-query-close-reason');
    await close.getByRole('button', { name: '确认关闭质疑' }).click();
    await messageText(page, '关闭质疑成功').waitFor();
    await thread.locator('.doubt-message[data-kind="close"]').waitFor();
    await screenshot(page, 'crf-query-closed');
    await thread
      .locator('.ant-modal-footer')
      .getByRole('button', { name: /^取\s*消$/ })
      .click();
    await waitState(page, '生命体征', '2');
    await page.context().close();
  });

  it('QRY-01/QRY-22: the query list shows the closed query, filters by state, and 定位 opens its form', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/project/${studyId}/doubtList`);
    await page.locator('.page-title', { hasText: '质疑列表' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: '心率与原始病历不符' });
    await row.waitFor();
    expect(await row.textContent()).toContain('张建国');
    expect(await row.textContent()).toContain('已关闭');
    // The item's title and its value with the unit, the form and the visit; never the variable name.
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells).toEqual(expect.arrayContaining(['生命体征基线', '心率', '72 次/分']));
    expect(cells).not.toContain('hr');

    await page.getByLabel('状态').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('待回复').click();
    await page.getByRole('button', { name: '搜索' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: '重置' }).click();
    await row.waitFor();
    await screenshot(page, 'crf-doubt-list');
    await expectAccessible(page, 'doubt-list');
    for (const width of WIDTHS) {
      await atWidth(page, width);
      // Below 992 px each query is one card: title, value with unit, patient, visit and form.
      const shown = width < 992 ? page.locator('.doubt-list-card', { hasText: '72 次/分' }) : row;
      await shown.waitFor();
      if (width < 992) expect(await shown.textContent()).toContain('基线 · 生命体征');
      // Nothing cut at the edge or hidden behind the fixed 操作 column.
      await expect.poll(() => cutTableCells(page)).toEqual([]);
      await screenshot(page, `doubt-list-${width}`);
    }
    await atWidth(page, 1440);
    await expect.poll(() => cutTableCells(page)).toEqual([]);

    await row.getByRole('button', { name: '查看' }).click();
    await page.getByRole('dialog', { name: '质疑记录' }).getByText('核实无误').waitFor();
    await page
      .getByRole('dialog', { name: '质疑记录' })
      .locator('.ant-modal-footer')
      .getByRole('button', { name: /^取\s*消$/ })
      .click();

    await row.getByRole('button', { name: '定位' }).click();
    await page.waitForURL(/\/crf\/\d+\?crfId=\d+&crfDataRecordId=\d+/);
    await page.locator('.crf-form-title', { hasText: '生命体征' }).waitFor();
    expect(await form(page).getByLabel('心率').inputValue()).toBe('72');
    await page.context().close();
  });

  it('PRINT-02/PRINT-03/PRINT-07/PRINT-14: CRF概览 shows every form with choice labels; 打印 without a template opens 打印预览', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await page.locator('.top-bar').getByRole('button', { name: 'CRF概览' }).click();
    const overview = page.getByRole('dialog', { name: 'CRF概览' });
    await overview.getByText(`张建国（${identificationCode}）`).first().waitFor();
    await overview.locator('.crf-overview-form-title', { hasText: '手术记录' }).waitFor();
    await overview.getByText('目前吸烟').waitFor();
    await overview.getByText('椎弓根螺钉').waitFor();
    expect(await overview.getByRole('button', { name: '打印' }).count()).toBe(0);
    await screenshot(page, 'crf-overview');
    await expectAccessible(page, 'crf-overview');
    await overview.getByRole('button', { name: '取消' }).click();

    await openForm(page, '生命体征');
    await page.locator('.top-bar').getByRole('button', { name: '打印' }).click();
    const preview = page.getByRole('dialog', { name: '打印预览' });
    await preview.getByText('130 mmHg').waitFor();
    await preview.getByRole('button', { name: '打印' }).waitFor();
    await screenshot(page, 'crf-print-preview');
    // PRINT-07: 打印 prints the dialog's content with the print stylesheet.
    await page.evaluate(() => {
      const w = window as unknown as { printed: number };
      w.printed = 0;
      window.print = () => {
        w.printed += 1;
      };
    });
    await preview.getByRole('button', { name: '打印' }).click();
    expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
    expect(await page.evaluate(() => document.body.classList.contains('crf-printing'))).toBe(true);
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('.crf-sider').isVisible()).toBe(false);
    expect(await preview.locator('.crf-overview-toolbar').isVisible()).toBe(false);
    await screenshot(page, 'crf-print-media');
    await page.emulateMedia({ media: 'screen' });
    await page.context().close();
  });

  it('CRF-12/unsaved: leaving a form with unsaved values asks first, and the values come back as a draft', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '实验室检查');
    await fill(form(page), '血沉', '18');
    await menuForm(page, '影像学检查').click();
    const leave = page.getByRole('dialog').filter({ hasText: '有未保存的修改' });
    await leave.getByRole('button', { name: '继续填写' }).waitFor();
    await settled(page);
    await leave.getByRole('button', { name: '继续填写' }).click();
    expect(await form(page).getByLabel('血沉').inputValue()).toBe('18');
    await menuForm(page, '影像学检查').click();
    await leave.getByRole('button', { name: '离开' }).waitFor();
    await settled(page);
    await leave.getByRole('button', { name: '离开' }).click();
    await page.locator('.crf-form-title', { hasText: '影像学检查' }).waitFor();

    await openForm(page, '实验室检查');
    const draft = page.getByRole('dialog', { name: '发现未保存的修改' });
    await draft.getByText('血沉').waitFor();
    await settled(page);
    await screenshot(page, 'crf-draft-offer');
    await draft.getByRole('button', { name: '恢复我的修改' }).click();
    expect(await form(page).getByLabel('血沉').inputValue()).toBe('18');
    await save(page);
    await messageText(page, '保存成功').waitFor();
    await waitState(page, '实验室检查', '1');
    await page.context().close();
  });
  it('CRF-14/CRF-24: 术后随访 is repeatable: a new record gets its id on its first save, and 新增 starts another', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '术后随访');
    await page.waitForURL(/crfDataRecordId=new/);
    await page.locator('.crf-records').getByText('新记录（未保存）').waitFor();
    await fill(form(page), '随访日期', '2026-01-15');
    await fill(form(page), 'ODI评分', '30');
    await save(page);
    await messageText(page, '保存成功').waitFor();
    await page.waitForURL(/crfDataRecordId=\d+/);
    const records = page.locator('.crf-records');
    await records.getByText('第 1 条').waitFor();
    // The nurse's values stayed in the form while the record got its id.
    expect(await form(page).getByLabel('ODI评分').inputValue()).toBe('30');

    await records.getByRole('button', { name: '新增' }).click();
    await page.waitForURL(/crfDataRecordId=new/);
    await fill(form(page), '随访日期', '2026-02-20');
    await save(page);
    await messageText(page, '保存成功').waitFor();
    await records.getByText('第 2 条').waitFor();
    await expect.poll(() => menuForm(page, '术后随访').locator('.crf-menu-count').textContent()).toBe('2');
    await records.locator('tr', { hasText: '第 1 条' }).getByRole('button', { name: '打开' }).click();
    await expect.poll(() => form(page).getByLabel('随访日期').inputValue()).toBe('2026-01-15');
    await screenshot(page, 'crf-repeatable-records');
    await expectAccessible(page, 'crf-repeatable');
    await page.context().close();
  });

  it('UPL-13/CONV-09/PRINT-08: an image uploaded in 影像学检查 is stored as a file key and shows as a thumbnail in the overview', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '影像学检查');
    await fill(form(page), '检查日期', '2026-01-10');
    await form(page).getByRole('group', { name: '正侧位片' }).getByRole('button', { name: '上传图片' }).click();
    const dialog = page.getByRole('dialog', { name: '添加图片' });
    await dialog.locator('input[type=file]').setInputFiles({ name: 'xray.png', mimeType: 'image/png', buffer: PNG });
    await dialog.getByText('上传时间').waitFor();
    await dialog.getByRole('textbox', { name: '备注' }).fill('术前正位片');
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'detached' });
    await save(page);
    await messageText(page, '保存成功').waitFor();
    await screenshot(page, 'crf-image-uploaded');

    await page.locator('.top-bar').getByRole('button', { name: 'CRF概览' }).click();
    const overview = page.getByRole('dialog', { name: 'CRF概览' });
    const thumb = overview.locator('.crf-overview-thumb').first();
    await thumb.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.crf-overview-thumb');
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    await overview.locator('.crf-overview-form-title', { hasText: '影像学检查' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'crf-overview-image');
    await page.context().close();
  });

  it('the audit trail reads in words: 表单历史 and 操作记录 show Chinese action names, item titles, choice labels, units and original file names, and 导出 writes the same as CSV', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '影像学检查');
    // The image keeps the name it was uploaded with (the value holds only its key).
    expect(await form(page).locator('.crf-media-meta').first().getAttribute('title')).toContain('xray.png');

    await page.locator('.crf-item-panel').getByRole('button', { name: '表单历史' }).click();
    const history = page.locator('.ant-drawer', { hasText: '表单历史' });
    const xray = history.locator('tr', { hasText: '正侧位片' });
    await xray.waitFor();
    expect(await xray.locator('.ant-tag').textContent()).toBe('保存');
    const link = xray.getByRole('link', { name: /xray\.png/ });
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/api\/v1\/fileupload\/downfile\?fileKey=[0-9a-f]{32}$/);
    expect((await page.request.get(href!)).status()).toBe(200);
    expect(await history.textContent()).not.toMatch(/item\.update|crf\.create|xray[^.]/);
    await settled(page);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await settled(page);
      await screenshot(page, `audit-form-history-${width}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    const [formCsv] = await Promise.all([
      page.waitForEvent('download'),
      history.getByRole('button', { name: /导\s*出/ }).click(),
    ]);
    const formText = fs.readFileSync((await formCsv.path())!, 'utf8');
    expect(formText.charCodeAt(0)).toBe(0xfeff);
    expect(formText).toContain('正侧位片');
    expect(formText).toContain('xray.png（术前正位片）');

    // The patient's 操作记录, from the patient list: every form, queries included.
    await page.goto(`/project/${studyId}/subject`);
    const patient = page.getByRole('row').filter({ hasText: identificationCode });
    await pickMore(page, patient, '操作记录');
    const operates = page.locator('.ant-drawer', { hasText: '操作记录 · 张建国' });
    await operates.getByRole('row').nth(1).waitFor();
    await operates.getByLabel('每页条数').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('100 条/页').click();
    const raised = operates.getByRole('row').filter({ hasText: '发起质疑' }).filter({ hasText: '生命体征 / 心率' });
    await raised.waitFor();
    expect(await raised.textContent()).toContain('心率与原始病历不符，请核实');
    await operates.getByRole('row').filter({ hasText: '回复质疑' }).filter({ hasText: '已核对原始病历' }).waitFor();
    await operates.getByRole('row').filter({ hasText: '关闭质疑' }).filter({ hasText: '核实无误' }).waitFor();
    // Choice labels and units, not codes.
    await operates.getByRole('row').filter({ hasText: '人口学资料 / 吸烟' }).filter({ hasText: '目前吸烟' }).waitFor();
    await operates
      .getByRole('row')
      .filter({ hasText: '生命体征 / 收缩压' })
      .filter({ hasText: '120 mmHg → 130 mmHg' })
      .waitFor();
    const words = (await operates.textContent()) ?? '';
    expect(words).not.toMatch(/item\.update|doubt\.(open|reply|close)|crf\.submit/);
    await settled(page);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      // Below 992 px each row is a card.
      if (width < 992) await operates.locator('.audit-card', { hasText: '发起质疑' }).first().waitFor();
      await settled(page);
      await screenshot(page, `audit-operates-${width}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    const [patientCsv] = await Promise.all([
      page.waitForEvent('download'),
      operates.getByRole('button', { name: /导\s*出/ }).click(),
    ]);
    const patientText = fs.readFileSync((await patientCsv.path())!, 'utf8');
    const header = patientText.slice(1, patientText.indexOf('\r\n')).split(',');
    expect(header).toEqual(expect.arrayContaining(['操作', '题目', '原值', '新值', '操作代码', '题目变量名']));
    expect(patientText).toContain('发起质疑');
    expect(patientText).toContain('doubt.open');
    expect(patientText).toContain('120 mmHg');
    await operates.locator('.ant-drawer-close').click();

    // The whole study's trail: the monitors' button on the patient list (the administrator holds it).
    const [studyCsv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: '导出稽查轨迹' }).click(),
    ]);
    expect(studyCsv.suggestedFilename()).toBe(`稽查轨迹-${studyId}.csv`);
    expect(fs.readFileSync((await studyCsv.path())!, 'utf8')).toContain('添加患者');
    await page.context().close();
  });

  it('forms §3 SDV: in SDV mode items and the whole form are marked verified, with who and when', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '生命体征');
    await page.locator('.top-bar').getByRole('button', { name: 'SDV' }).click();
    const panel = page.locator('.crf-item-panel');
    // The mark is the server's: the box shows it once the call has answered.
    await panel.getByLabel('核查 收缩压').click();
    await expect.poll(() => panel.getByLabel('核查 收缩压').isChecked()).toBe(true);
    await panel.getByRole('button', { name: '整表核查' }).click();
    await panel.getByText('整表已核查').waitFor();
    await screenshot(page, 'crf-sdv-mode');
    await page.locator('.top-bar').getByRole('button', { name: 'SDV' }).click();
    await panel.locator('.crf-item-row[data-item="dbp"] .crf-sdv-mark').waitFor();
    expect(await panel.locator('.crf-item-row[data-item="sbp"] .crf-sdv-mark').getAttribute('aria-label')).toMatch(
      /^已核查：系统管理员/,
    );
    await page.context().close();
  });

  it('SUBJ-23: the investigator signs with the password; a later change shows the signature 已失效', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await page.locator('.top-bar').getByRole('button', { name: '签名' }).click();
    let dialog = page.getByRole('dialog', { name: '电子签名' });
    await dialog.getByText('尚未签名').waitFor();
    await settled(page);
    await dialog.getByLabel('登录密码').fill('wrong-password');
    await dialog.getByRole('button', { name: '签名' }).click();
    await dialog.getByText('密码错误，签名未完成').waitFor();
    await dialog.getByLabel('登录密码').fill(ADMIN_PASSWORD);
    await dialog.getByRole('button', { name: '签名' }).click();
    await messageText(page, '签名成功').waitFor();
    await dialog.getByText('有效').waitFor();
    await screenshot(page, 'crf-signed');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await fill(form(page), '每日包数', '2');
    await save(page);
    await messageText(page, '保存成功').waitFor();
    await page.locator('.top-bar').getByRole('button', { name: '签名' }).click();
    dialog = page.getByRole('dialog', { name: '电子签名' });
    await dialog.getByText('已失效').first().waitFor();
    await page.context().close();
  });
  it('409: when someone else saved first nothing is overwritten: both values are shown, and after 刷新 the nurse’s own edit comes back on top of theirs', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '实验室检查');
    const crfId = Number(new URL(page.url()).searchParams.get('crfId'));
    await fill(form(page), '白细胞', '6.5');

    // A colleague saves the same record from another computer meanwhile.
    const { token } = await login(ADMIN_PASSWORD);
    const detail = await api<{ crfDataRecord: { id: number; version: number; values: Record<string, unknown> } }>(
      'GET',
      `/api/v3/business/crf/${subjectRecordId}?crfId=${crfId}`,
      token,
    );
    const record = detail.crfDataRecord;
    await api('PUT', '/api/v3/business/crf', token, {
      subjectRecordId,
      crfId,
      crfDataRecordId: record.id,
      version: record.version,
      values: { ...record.values, esr: '20' },
      submit: false,
      requestId: `colleague-${Date.now()}`,
    });

    await save(page);
    const conflict = page.getByRole('dialog', { name: '数据已被他人修改，请刷新后重试' });
    const esr = conflict.locator('tr', { hasText: '血沉' });
    await esr.waitFor();
    await settled(page);
    expect(await esr.textContent()).toContain('20 mm/h');
    expect(await esr.textContent()).toContain('18 mm/h');
    expect(await conflict.locator('tr', { hasText: '白细胞' }).textContent()).toContain('6.5');
    await screenshot(page, 'crf-conflict');
    await conflict.getByRole('button', { name: '刷新' }).click();

    const draft = page.getByRole('dialog', { name: '发现未保存的修改' });
    await draft.getByText('白细胞').waitFor();
    await settled(page);
    await draft.getByRole('button', { name: '恢复我的修改' }).click();
    expect(await form(page).getByLabel('白细胞').inputValue()).toBe('6.5');
    expect(await form(page).getByLabel('血沉').inputValue()).toBe('20');
    await save(page);
    await messageText(page, '保存成功').waitFor();
    const after = await api<{ crfDataRecord: { values: Record<string, unknown> } }>(
      'GET',
      `/api/v3/business/crf/${subjectRecordId}?crfId=${crfId}`,
      token,
    );
    expect(after.crfDataRecord.values).toMatchObject({ esr: '20', wbc: '6.5' });
    await page.context().close();
  });
  it('QRY-05: warnings of a submitted form are shown and become system queries on the item; the form turns 存在质疑', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '生命体征');
    await fill(form(page), '收缩压', '185');
    await save(page);
    const reason = page.getByRole('dialog', { name: '修改原因' });
    await reason.getByLabel('修改原因').fill('患者紧张，复测仍高');
    await reason.getByRole('button', { name: '确定' }).click();
    await messageText(page, '保存成功').waitFor();
    const warnings = page.locator('.crf-editor-alert', { hasText: '以下提示已作为系统质疑' });
    await warnings.getByText('收缩压≥180 mmHg，请核实').waitFor();
    await waitState(page, '生命体征', '9');
    // A check and the reference range: two system queries on 收缩压.
    const marker = page.locator('.crf-item-row[data-item="sbp"]').getByRole('button', { name: '质疑记录 收缩压' });
    await marker.click();
    await page.locator('.ant-dropdown:visible').getByText('系统质疑记录 1').click();
    const thread = page.getByRole('dialog', { name: '质疑记录' });
    await thread.locator('.ant-tag', { hasText: '系统' }).waitFor();
    await thread
      .getByText(/收缩压(≥180 mmHg，请核实|高于参考范围，请核实)/)
      .first()
      .waitFor();
    await screenshot(page, 'crf-system-query');
    await page.context().close();
  });

  it('keyboard: a date is taken from the calendar without a mouse (Tab to 选择日期, Enter, arrows, Enter)', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await openForm(page, '影像学检查');
    const date = form(page).getByLabel('检查日期', { exact: true });
    await expect.poll(() => date.inputValue()).toBe('2026-01-10');
    await date.focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('选择日期');
    await page.keyboard.press('Enter');
    const calendar = page.locator('.crf-date-popup:not(.ant-picker-dropdown-hidden)');
    await calendar.waitFor();
    await expectAccessible(page, 'crf-calendar-open');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => date.inputValue()).toBe('2026-01-18');
    await calendar.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('选择日期');
    await page.context().close();
  });
});
