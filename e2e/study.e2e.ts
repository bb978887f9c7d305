import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { exampleCrf } from '@ecrf/core';
import { exportExcel } from '@ecrf/core/interop';
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
import { cutTableCells, openMore, pickMore } from './tables.js';

const ADMIN_PASSWORD = 'Admin@2024';
const DOCTOR = { userName: '13911112222', name: '王医生', password: 'Doctor@123', changed: 'Doctor@2024' };
const OUTSIDER = { userName: '13933334444', name: '赵医生', password: 'Outside@123', changed: 'Outside@2024' };
const STUDY = '脊柱侧弯登记研究';

let platform: Platform;
let browser: Browser;
let files: string;

/** A small REDCap data dictionary with branching logic and a calculation. */
const REDCAP_HEADER =
  '"Variable / Field Name","Form Name","Section Header","Field Type","Field Label","Choices, Calculations, OR Slider Labels","Field Note","Text Validation Type OR Show Slider Number","Text Validation Min","Text Validation Max","Identifier?","Branching Logic (Show field only if...)","Required Field?","Custom Alignment","Question Number (surveys only)","Matrix Group Name","Matrix Ranking?","Field Annotation"';
const redcapRow = (...cells: string[]) =>
  [...cells, ...Array(18 - cells.length).fill('')].map((c) => `"${c.replace(/"/g, '""')}"`).join(',');
const REDCAP = [
  REDCAP_HEADER,
  redcapRow('record_id', 'screening', '', 'text', '筛选号'),
  redcapRow('visit_date', 'screening', '筛选', 'text', '筛选日期', '', '', 'date_ymd', '', '', '', '', 'y'),
  redcapRow('sex', 'screening', '', 'radio', '性别', '1, 男 | 2, 女', '', '', '', '', '', '', 'y'),
  redcapRow('pregnant', 'screening', '', 'yesno', '是否妊娠', '', '', '', '', '', '', "[sex] = '2'"),
  redcapRow('weight', 'screening', '体格检查', 'text', '体重 (kg)', '', '', 'number', '20', '300'),
  redcapRow('height', 'screening', '', 'text', '身高 (cm)', '', '', 'integer', '50', '250'),
  redcapRow('bmi', 'screening', '', 'calc', 'BMI', 'round([weight]*10000/([height]*[height]),1)'),
].join('\r\n');

/** A definition the linter refuses: an item type that does not exist. */
const BROKEN_JSON = JSON.stringify({
  title: '有误的表单',
  option: {},
  children: [{ type: 'gauge', name: 'g', title: '仪表', option: {}, children: [] }],
});

beforeAll(async () => {
  platform = await platformUnderTest();
  browser = await launchBrowser();
  files = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-study-files-'));
  fs.writeFileSync(path.join(files, 'screening_dictionary.csv'), REDCAP);
  fs.writeFileSync(path.join(files, 'follow_up.xlsx'), await exportExcel([exampleCrf()]));
  fs.writeFileSync(path.join(files, 'broken.json'), BROKEN_JSON);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  if (files) fs.rmSync(files, { recursive: true, force: true });
});

async function signIn(page: Page, userName: string, password: string) {
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

/** Calls the API with the signed-in user's token, for set-up the study pages don't cover (users). */
async function api<T>(page: Page, method: string, url: string, body?: unknown): Promise<T> {
  return page.evaluate(
    async ({ method, url, body }) => {
      const res = await fetch(url, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${localStorage.getItem('token')}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as { code: number; msg: string; data: unknown };
      if (json.code !== 200) throw new Error(`${method} ${url}: ${json.msg}`);
      return json.data as T;
    },
    { method, url, body },
  );
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
  await page.locator('.page-title:visible', { hasText: item }).waitFor();
}

async function success(page: Page, text: string) {
  await page.locator('.ant-message-notice', { hasText: text }).last().waitFor();
}

/** Picks an option of the Select labelled `label` inside `scope` (a dialog or the page). */
async function pick(
  page: Page,
  scope: ReturnType<Page['getByRole']> | Page,
  label: string,
  option: string,
  exact = true,
) {
  await scope.getByLabel(label, { exact: true }).click();
  await page.locator('.ant-select-dropdown:visible').getByTitle(option, { exact }).first().click();
}

/**
 * A dictionary converts with notes or warnings (or none): either the result dialog or a success message names
 * the imported version. Waiting for that version's text, not for any notice, keeps a previous upload's message
 * from passing for this one; the dialog's button is clicked only once its content shows.
 */
async function acceptImport(page: Page, form: string) {
  const dialog = page.getByRole('dialog', { name: '上传结果' });
  await page.locator('.ant-message-notice', { hasText: form }).or(dialog.getByText(form)).first().waitFor();
  if (await dialog.isVisible()) {
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'hidden' });
  }
}

function studyRow(page: Page) {
  return page.getByRole('row').filter({ hasText: STUDY });
}

describe('studies and their setup', () => {
  it('STUDY-01/STUDY-02/STUDY-07: the administrator creates a study on 项目维护; it shows on the study list', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, INITIAL_PASSWORD);
    await changeForcedPassword(page, INITIAL_PASSWORD, ADMIN_PASSWORD);

    // Set-up outside this feature: a system role that opens the study list, and two staff accounts.
    const menus = await api<Array<{ menuId: number; code: string }>>(page, 'GET', '/api/system/menu/list');
    const studyListMenu = menus.find((m) => m.code === 'studyList')!;
    const role = await api<{ roleId: number }>(page, 'POST', '/api/system/role', {
      roleName: '临床医生',
      roleKey: 'doctor',
      menuIds: [studyListMenu.menuId],
    });
    const [root] = await api<Array<{ deptId: number; parentId: number }>>(page, 'GET', '/api/system/dept/list');
    for (const user of [DOCTOR, OUTSIDER]) {
      await api(page, 'POST', '/api/system/user', {
        userName: user.userName,
        password: user.password,
        name: user.name,
        deptId: root.deptId,
        roleIds: [role.roleId],
      });
    }

    await openMenu(page, '项目管理', '项目维护');
    await page.getByRole('button', { name: '新增', exact: true }).click();
    const dialog = page.getByRole('dialog');
    // A click while the dialog still zooms in can land beside the button on a loaded machine.
    await dialog.waitFor();
    await settle(page);
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.getByText('请输入项目名称').waitFor();
    await dialog.getByLabel('项目名称').fill(STUDY);
    await dialog.getByLabel('项目编号').fill('脊柱');
    await dialog.getByText('项目编号只能包含字母、数字、_ 和 -').waitFor();
    await dialog.getByLabel('项目编号').fill('SCOLIOSIS-01');
    await dialog.getByLabel('负责人').fill('张主任');
    await dialog.getByRole('button', { name: '确定' }).click();
    await success(page, '新增成功');
    await dialog.waitFor({ state: 'detached' });
    const row = studyRow(page);
    await row.waitFor();
    expect(await row.textContent()).toContain('SCOLIOSIS-01');
    expect(await row.textContent()).toContain('进行中');
    await screenshot(page, 'study-manage');
    await expectAccessible(page, 'study-manage');
    // Every column in view beside the fixed 操作 column (a narrower screen leaves out 创建人 and 创建时间), and
    // the setup pages other than 项目配置 and 删除 under 更多, each allowed for the administrator.
    for (const width of [1366, 1920, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await expect.poll(() => cutTableCells(page)).toEqual([]);
      if (width !== 1440) await screenshot(page, `study-manage-${width}`);
    }
    const remove = await openMore(page, row, '删除');
    expect(await remove.getAttribute('aria-disabled')).not.toBe('true');
    await screenshot(page, 'study-manage-more');
    await page.keyboard.press('Escape');

    await page.locator('.tab-strip').getByText('项目列表', { exact: true }).click();
    await page.getByRole('link', { name: `进入项目 ${STUDY}` }).waitFor();
    await page.context().close();
  });

  it('STUDY-03/STUDY-17/STUDY-18: CRF管理 takes a REDCap dictionary and an Excel workbook, refuses a broken file with its errors, previews a form', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await openMenu(page, '项目管理', '项目维护');
    await pickMore(page, studyRow(page), 'CRF管理');
    await page.waitForURL(/\/study\/crf\?studyId=\d+/);
    await page.locator('.page-title:visible', { hasText: 'CRF管理' }).waitFor();

    const input = page.locator('input[type=file]');
    await input.setInputFiles(path.join(files, 'screening_dictionary.csv'));
    await acceptImport(page, 'screening（第 1 版）');
    await page.getByRole('row').filter({ hasText: 'screening' }).waitFor();
    expect(await page.getByRole('row').filter({ hasText: 'screening' }).textContent()).toContain('REDCap');
    await expectAccessible(page, 'study-crf');

    // Two files in one go: each judged on its own.
    await input.setInputFiles([path.join(files, 'follow_up.xlsx'), path.join(files, 'broken.json')]);
    const result = page.getByRole('dialog', { name: '上传结果' });
    await result.waitFor();
    await result.getByText('随访访视（第 1 版）').waitFor();
    await result.getByText('未导入', { exact: true }).waitFor();
    await result.getByText('broken.json').waitFor();
    await result.getByText('未知的题目类型', { exact: false }).first().waitFor();
    await screenshot(page, 'study-crf-upload-result');
    await expectAccessible(page, 'study-crf-upload-result');
    await result.getByRole('button', { name: '确定' }).click();
    await result.waitFor({ state: 'hidden' });
    await page.getByRole('row').filter({ hasText: '随访访视' }).waitFor();

    // The broken file alone: refused whole with the linter's list.
    await input.setInputFiles(path.join(files, 'broken.json'));
    await result.waitFor();
    await result.getByText('CRF定义有误，未导入').waitFor();
    await result.getByText('未知的题目类型', { exact: false }).first().waitFor();
    await result.getByRole('button', { name: '确定' }).click();
    await result.waitFor({ state: 'hidden' });

    // A second upload of the same title asks first: a new version, or a new CRF beside it.
    await input.setInputFiles(path.join(files, 'screening_dictionary.csv'));
    const plan = page.getByRole('dialog', { name: '确认上传' });
    await plan.getByText('请为每个同名表单选择处理方式').waitFor();
    expect(await plan.getByRole('button', { name: '确认上传' }).isDisabled()).toBe(true);
    await plan.getByLabel('生成新版本（第 1 版 → 第 2 版）').check();
    await screenshot(page, 'study-crf-upload-plan');
    await plan.getByRole('button', { name: '确认上传' }).click();
    await plan.waitFor({ state: 'detached' });
    await acceptImport(page, 'screening（第 2 版）');
    await page.getByRole('row').filter({ hasText: 'screening' }).filter({ hasText: '第 2 版' }).waitFor();

    await page.getByRole('row').filter({ hasText: '随访访视' }).getByRole('button', { name: '预览' }).click();
    const preview = page.getByRole('dialog', { name: 'CRF预览 · 随访访视' });
    await preview.getByText('收缩压').first().waitFor();
    await screenshot(page, 'study-crf-preview');
    await expectAccessible(page, 'study-crf-preview');
    await preview.getByText('结构', { exact: true }).click();
    await preview.getByText('sbp').first().waitFor();
    await page.keyboard.press('Escape');

    await pickMore(page, page.getByRole('row').filter({ hasText: 'screening' }), '版本记录');
    const versions = page.getByRole('dialog', { name: '版本记录 · screening' });
    await versions.getByRole('row').filter({ hasText: '第 1 版' }).waitFor();
    await versions.getByRole('row').filter({ hasText: '第 2 版' }).waitFor();
    await page.keyboard.press('Escape');

    const download = page.waitForEvent('download');
    await page.getByRole('row').filter({ hasText: '随访访视' }).getByRole('button', { name: '导出' }).click();
    await page.getByRole('menuitem', { name: '导出 Excel' }).click();
    expect((await download).suggestedFilename()).toBe('随访访视-v1.xlsx');
    await page.context().close();
  });

  it('STUDY-19/STUDY-20/STUDY-21: ECRF阶段 arranges the forms into ordered visit stages', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await openMenu(page, '项目管理', '项目维护');
    await pickMore(page, studyRow(page), 'ECRF阶段');
    await page.waitForURL(/\/study\/crfStage\?studyId=\d+/);
    await page.getByText('暂无阶段，请先新增阶段').waitFor();

    for (const name of ['基线期', '随访期']) {
      await page.getByRole('button', { name: '新增阶段' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('阶段名称').fill(name);
      await dialog.getByRole('button', { name: '确定' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('row').filter({ hasText: name }).waitFor();
    }
    await pickMore(page, page.getByRole('row').filter({ hasText: '随访期' }), '新增下级');
    await page.getByRole('dialog').getByLabel('阶段名称').fill('术后3个月');
    await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
    await page.getByRole('row').filter({ hasText: '术后3个月' }).waitFor();

    await page.getByRole('row').filter({ hasText: '基线期' }).getByRole('button', { name: '导入表单' }).click();
    let dialog = page.getByRole('dialog', { name: '导入表单到“基线期”' });
    await pick(page, dialog, '表单', 'screening');
    await page.keyboard.press('Escape');
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: '基线期' }).getByText('（单次）').waitFor();

    await page.getByRole('row').filter({ hasText: '术后3个月' }).getByRole('button', { name: '导入表单' }).click();
    dialog = page.getByRole('dialog', { name: '导入表单到“术后3个月”' });
    await pick(page, dialog, '表单', '随访访视');
    await page.keyboard.press('Escape');
    await dialog.getByText('可重复', { exact: true }).click();
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: '术后3个月' }).getByText('（可重复）').waitFor();

    const names = () => page.locator('.ant-table-tbody > tr.ant-table-row > td:nth-child(1)').allInnerTexts();
    expect((await names()).map((t) => t.trim())).toEqual(['基线期', '随访期', '术后3个月']);
    await page.getByRole('button', { name: '上移 随访期' }).click();
    await expect.poll(async () => (await names()).map((t) => t.trim())).toEqual(['随访期', '术后3个月', '基线期']);

    await pickMore(page, page.getByRole('row').filter({ hasText: '随访期' }).first(), '删除');
    await page.locator('.ant-modal-confirm').getByRole('button', { name: '确定' }).click();
    await page.locator('.ant-message-notice', { hasText: '存在下级阶段，不允许删除' }).waitFor();
    await screenshot(page, 'study-crf-stages');
    await expectAccessible(page, 'study-crf-stage');

    await page.getByRole('row').filter({ hasText: '术后3个月' }).getByRole('button', { name: '设置' }).click();
    await page.waitForURL(/\/study\/crfStage\/set\/\d+/);
    await page.locator('.page-title', { hasText: 'ECRF设置 · 术后3个月' }).waitFor();
    const formRow = page.getByRole('row').filter({ hasText: '随访访视' });
    await formRow.waitFor();
    // The pointer that clicked 设置 now rests on this page's 移除 link; move it off, so the check sees the page
    // as it rests (a hovered link shows its hover shade).
    await page.mouse.move(0, 0);
    await expectAccessible(page, 'study-crf-stage-set');
    await formRow.getByText('单次', { exact: true }).click();
    await success(page, '修改成功');
    await page.getByRole('button', { name: '返回ECRF阶段' }).click();
    await page.getByRole('row').filter({ hasText: '术后3个月' }).getByText('（单次）').waitFor();
    await page.context().close();
  });

  it('STUDY-10/STUDY-12/STUDY-25: 项目配置 switches queries on, numbers subjects automatically and lists the diseases', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await openMenu(page, '项目管理', '项目维护');
    await studyRow(page).getByRole('button', { name: '项目配置' }).click();
    await page.waitForURL(/\/study\/config\?studyId=\d+/);
    await page.locator('.study-picker').getByText(STUDY).waitFor();
    await expectAccessible(page, 'study-config');

    await page.getByRole('tab', { name: '病种' }).click();
    await page.getByRole('button', { name: '新增病种' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('病种名称').fill('青少年特发性脊柱侧弯');
    await dialog.getByLabel('病种编码').fill('AIS');
    await settle(page);
    await dialog.getByRole('button', { name: '确定' }).click();
    await page.getByRole('row').filter({ hasText: 'AIS' }).waitFor();

    await page.getByRole('tab', { name: '功能设置' }).click();
    // Whatever a new study starts with, the switch turns queries off and on again.
    const doubt = page.getByRole('switch', { name: '质疑功能' });
    await doubt.and(page.locator(':not(.ant-switch-loading)')).waitFor();
    const initially = await doubt.getAttribute('aria-checked');
    for (const next of initially === 'true' ? ['false', 'true'] : ['true']) {
      await doubt.click();
      await expect.poll(() => doubt.getAttribute('aria-checked')).toBe(next);
    }

    await page.getByRole('switch', { name: '启用自动编号' }).click();
    await page.getByLabel('编号前缀').fill('SC-');
    await page.getByLabel('流水号位数').fill('3');
    await page.getByRole('region', { name: '自动编号' }).getByRole('button', { name: '保存' }).click();
    await page.getByRole('region', { name: '自动编号' }).getByText('SC-001').waitFor();
    await screenshot(page, 'study-config-features');
    await expectAccessible(page, 'study-config-features');
    await page.context().close();
  });

  it('STUDY-04/STUDY-14/STUDY-15/STUDY-16: a study role with a permission tree, and a staff member holding it', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await openMenu(page, '项目管理', '项目维护');
    await pickMore(page, studyRow(page), '项目角色');
    await page.waitForURL(/\/study\/\d+\/role/);
    await page.locator('.page-title', { hasText: `${STUDY} · 项目角色` }).waitFor();
    await page.getByRole('row').filter({ hasText: '项目管理员' }).waitFor();

    await page.getByRole('button', { name: '新增', exact: true }).click();
    const roleDialog = page.getByRole('dialog');
    await roleDialog.waitFor();
    await settle(page);
    await roleDialog.getByLabel('角色名称').fill('数据录入员');
    await roleDialog.getByText('保存表单', { exact: true }).click();
    await roleDialog.getByText('随访访视', { exact: true }).click();
    await roleDialog.getByRole('button', { name: '确定' }).click();
    await success(page, '新增成功');
    const roleRow = page.getByRole('row').filter({ hasText: '数据录入员' });
    await roleRow.waitFor();
    // 保存表单 and the six actions of 随访访视.
    expect(await roleRow.textContent()).toContain('7 项');
    await screenshot(page, 'study-roles');
    await expectAccessible(page, 'study-role');

    await openMenu(page, '项目管理', '项目维护');
    await pickMore(page, studyRow(page), '项目人员');
    await page.waitForURL(/\/study\/\d+\/user/);
    await page.locator('.page-title', { hasText: `${STUDY} · 项目人员` }).waitFor();
    await page.getByRole('button', { name: '添加人员' }).click();
    const memberDialog = page.getByRole('dialog');
    await pick(page, memberDialog, '人员', `${DOCTOR.name}（${DOCTOR.userName}）`, false);
    await page.keyboard.press('Escape');
    await pick(page, memberDialog, '项目角色', '数据录入员');
    await memberDialog.getByRole('button', { name: '确定' }).click();
    await memberDialog.waitFor({ state: 'detached' });
    const memberRow = page.getByRole('row').filter({ hasText: DOCTOR.name });
    await memberRow.waitFor();
    expect(await memberRow.textContent()).toContain('数据录入员');
    await screenshot(page, 'study-users');
    await expectAccessible(page, 'study-user');
    await page.context().close();
  });

  it('STUDY-27/STUDY-28/STUDY-29: the member sees the study and its QR code; another user sees neither', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signIn(page, DOCTOR.userName, DOCTOR.password);
    await changeForcedPassword(page, DOCTOR.password, DOCTOR.changed);
    const card = page.getByRole('link', { name: `进入项目 ${STUDY}` });
    await card.waitFor();
    expect(await card.textContent()).toContain('数据录入员');
    await screenshot(page, 'study-list-member');
    await expectAccessible(page, 'study-list-member');
    await card.click();
    await page.waitForURL(/\/project\/\d+\/home/);
    const studyUrl = page.url();
    await page.locator('.top-bar-title', { hasText: STUDY }).waitFor();
    await page.getByRole('button', { name: '项目二维码' }).click();
    const qr = page.getByRole('dialog', { name: '项目二维码' });
    const image = qr.getByRole('img', { name: '项目二维码' });
    await image.waitFor();
    expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await image.evaluate((img) => (img as HTMLImageElement).offsetWidth)).toBe(180);
    await screenshot(page, 'study-qr');
    const download = page.waitForEvent('download');
    await qr.getByRole('button', { name: '下载二维码' }).click();
    expect((await download).suggestedFilename()).toBe(`${STUDY}二维码.png`);
    await page.context().close();

    const other = await newPage(browser, platform.baseUrl);
    await signIn(other, OUTSIDER.userName, OUTSIDER.password);
    await changeForcedPassword(other, OUTSIDER.password, OUTSIDER.changed);
    await other.getByText('您还没有参与任何项目', { exact: false }).waitFor();
    expect(await other.getByRole('link', { name: `进入项目 ${STUDY}` }).count()).toBe(0);
    // Even with the address, the study's QR code is refused.
    await other.goto(new URL(studyUrl).pathname);
    await other.getByRole('button', { name: '项目二维码' }).click();
    await other.locator('.ant-message-notice', { hasText: '您未参与该项目' }).waitFor();
    await other.context().close();
  });
});
