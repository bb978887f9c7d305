import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  settle,
  startPlatform,
  type Platform,
} from './harness.js';
import { addStudyMember, callApi, prepareAdmin, signInAs } from './api.js';

const EDITOR = { userName: '13700000061', name: '宣教护士', password: 'Editor@2024' };

let platform: Platform;
let browser: Browser;
let admin: string;
let studyId: number;
let code: string;
let page: Page | undefined;

const api = <T>(method: string, path: string, token: string | null, body?: unknown) =>
  callApi<T>(platform.baseUrl, method, path, token, body);

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const crfs = await api<{ id: number; title: string }[]>('GET', `/api/system/crf/list?studyId=${studyId}`, admin);
  const vitals = crfs.find((c) => c.title === '生命体征')!.id;
  await addStudyMember(platform.baseUrl, admin, studyId, EDITOR, [
    'btn:project.knowledge.manage',
    'btn:project.expert.manage',
    'btn:project.department.manage',
    'btn:project.medical.view',
    'btn:project.medical.edit',
    'btn:business.subject.identifiers',
    `crf:${vitals}:view`,
  ]);
  const patient = await api<{ subjectRecordId: number; identificationCode: string }>(
    'POST',
    '/api/business/subject',
    admin,
    {
      studyId,
      subjectName: '赵建国',
      gender: 1,
      birth: '1961-05-20',
      diseaseCode: 'LSS',
    },
  );
  code = patient.identificationCode;
  await api('PUT', '/api/v3/business/crf', admin, {
    subjectRecordId: patient.subjectRecordId,
    crfId: vitals,
    version: 0,
    values: { sbp: 132, dbp: 84, hr: 72 },
  });
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

/** The nurse's page, signed in once (a page is made inside a test: it reports its failures there). */
async function nursePage(): Promise<Page> {
  if (page) return page;
  page = await newPage(browser, platform.baseUrl);
  await signInAs(page, EDITOR.userName, EDITOR.password);
  // The content pages carry no study id: they start with the study last opened.
  await page.goto(`/project/${studyId}/home`);
  await page.locator('.top-bar').waitFor();
  return page;
}

async function pick(p: Page, scope: Locator, label: string, option: string) {
  await scope.getByLabel(label, { exact: true }).click();
  await settle(p);
  await p.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: option }).first().click();
}

describe('content for staff and patients', () => {
  it('KNOW-01/KNOW-04: the nurse writes an article in the editor and publishes it; a patient reads it on /m/knowledge at 390 px', async () => {
    const page = await nursePage();
    await page.goto('/project/knowledge');
    await page.getByRole('heading', { name: '知识库' }).waitFor();
    await page.getByRole('button', { name: '新增文章' }).click();
    const dialog = page.getByRole('dialog', { name: '新增文章' });
    await settle(page);
    await pick(page, dialog, '分类', '康复护理');
    await dialog.getByLabel('标题', { exact: true }).fill('腰椎术后如何下床活动');
    const editor = dialog.locator('.rich-text-content');
    await editor.click();
    // A toolbar button leaves the caret in the text, so typing goes on at once, as a person's would.
    const focused = () => editor.evaluate((el) => el === document.activeElement);
    await page.keyboard.type('术后第一天在护士指导下');
    // Pressed and not yet released, the button has not taken the focus.
    const bold = (await dialog.getByRole('button', { name: '加粗' }).boundingBox())!;
    await page.mouse.move(bold.x + bold.width / 2, bold.y + bold.height / 2);
    await page.mouse.down();
    expect(await focused()).toBe(true);
    await page.mouse.up();
    await dialog.locator('.ant-btn-primary[aria-label="加粗"]').waitFor();
    await page.keyboard.type('佩戴腰围');
    await dialog.getByRole('button', { name: '加粗' }).click();
    expect(await focused()).toBe(true);
    await page.keyboard.type('后下床。');
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: '无序列表' }).click();
    expect(await focused()).toBe(true);
    await page.keyboard.type('先侧身坐起');
    await page.keyboard.press('Enter');
    await page.keyboard.type('再扶床站立');
    await editor.locator('strong', { hasText: '佩戴腰围' }).waitFor();
    await screenshot(page, 'knowledge-editor');
    await dialog.getByRole('button', { name: '发布' }).click();
    await page.locator('.ant-message-notice', { hasText: '保存成功' }).waitFor();
    const row = page.locator('.ant-table-row', { hasText: '腰椎术后如何下床活动' });
    await row.getByText('已发布').waitFor();
    await row.getByText('康复护理').waitFor();
    await screenshot(page, 'knowledge-list');

    const phone = await browser.newContext({
      baseURL: platform.baseUrl,
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
      locale: 'zh-CN',
    });
    const mobile = await phone.newPage();
    try {
      await mobile.goto(`/m/knowledge?studyId=${studyId}`);
      const card = mobile.locator('.m-card', { hasText: '腰椎术后如何下床活动' });
      await card.waitFor();
      await card.getByText('术后第一天在护士指导下佩戴腰围后下床。').waitFor();
      await screenshot(mobile, 'knowledge-mobile-list');
      await expectAccessible(mobile, 'knowledge-mobile-list');
      await card.tap();
      await mobile.waitForURL(/\/m\/knowledge\/\d+/);
      const article = mobile.locator('.m-article');
      await article.getByRole('heading', { name: '腰椎术后如何下床活动' }).waitFor();
      await article.locator('strong', { hasText: '佩戴腰围' }).waitFor();
      await article.locator('li', { hasText: '再扶床站立' }).waitFor();
      // Phone first: nothing runs off the side of a 390 px screen.
      expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(mobile, 'knowledge-mobile-article');
      await expectAccessible(mobile, 'knowledge-mobile-article');
    } finally {
      await phone.close();
    }
  });

  it('KNOW-02/KNOW-06: the nurse adds a doctor on 医生管理', async () => {
    const page = await nursePage();
    await page.goto('/project/expert');
    await page.getByRole('heading', { name: '医生管理' }).waitFor();
    await page.getByRole('button', { name: '新增医生' }).click();
    const dialog = page.getByRole('dialog', { name: '新增医生' });
    await settle(page);
    await dialog.getByLabel('姓名').fill('周立新');
    await dialog.getByLabel('职称').fill('主任医师');
    await dialog.getByLabel('医院').fill('第一人民医院');
    await dialog.getByLabel('科室').fill('脊柱外科');
    await dialog.getByLabel('擅长').fill('腰椎管狭窄症的微创减压');
    await dialog.getByRole('button', { name: /^确\s?定$/ }).click();
    await page.locator('.ant-message-notice', { hasText: '保存成功' }).waitFor();
    const row = page.locator('.ant-table-row', { hasText: '周立新' });
    await row.getByText('脊柱外科').waitFor();
    await screenshot(page, 'expert-list');
    await expectAccessible(page, 'expert-list');
  });

  it('KNOW-02/KNOW-08: the nurse files a discharge summary on 病历管理 and links it to the patient’s 生命体征 record as its source', async () => {
    const page = await nursePage();
    await page.goto('/project/medical');
    await page.getByRole('heading', { name: '病历管理' }).waitFor();
    await page.getByRole('button', { name: '新增病历资料' }).click();
    const dialog = page.getByRole('dialog', { name: '新增病历资料' });
    await settle(page);
    await dialog.getByLabel('患者').click();
    await page.keyboard.type(code);
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: '赵建国' }).click();
    await dialog.getByLabel('标题').fill('第一次住院出院小结');
    await pick(page, dialog, '类别', '出院小结');
    await dialog.getByLabel('记录').fill('L4/5 椎管减压术后，切口愈合良好，血压平稳。');
    await dialog.getByRole('button', { name: /^确\s?定$/ }).click();
    await page.locator('.ant-message-notice', { hasText: '保存成功' }).waitFor();
    const row = page.locator('.ant-table-row', { hasText: '第一次住院出院小结' });
    await row.getByText('未关联').waitFor();
    await row.getByText('赵建国').waitFor();
    await row.getByRole('button', { name: '关联表单' }).click();
    const link = page.getByRole('dialog', { name: /关联表单记录/ });
    await settle(page);
    await pick(page, link, '表单记录', '生命体征');
    await link.getByRole('button', { name: /^确\s?定$/ }).click();
    await page.locator('.ant-message-notice', { hasText: '操作成功' }).waitFor();
    await row.locator('.ant-tag', { hasText: '生命体征' }).waitFor();
    await screenshot(page, 'medical-list');
    await expectAccessible(page, 'medical-list');
  });

  it('KNOW-02/KNOW-07: the nurse introduces a study site on 项目介绍 and corrects its address', async () => {
    const page = await nursePage();
    await page.goto('/project/department');
    await page.getByRole('heading', { name: '项目介绍' }).waitFor();
    await page.getByText('暂无医院，请新增').waitFor();
    await page.getByRole('button', { name: '新增医院' }).click();
    const dialog = page.getByRole('dialog', { name: '新增医院' });
    await settle(page);
    await dialog.getByLabel('医院名称').fill('第一人民医院');
    await dialog.getByLabel('地址').fill('人民路1号');
    await dialog.getByLabel('联系人').fill('王护士');
    await dialog.getByLabel('联系电话').fill('010-12345678');
    await dialog.getByLabel('介绍').fill('三级甲等综合医院，脊柱外科为省级重点专科。');
    await dialog.getByRole('button', { name: /^确\s?定$/ }).click();
    await page.locator('.ant-message-notice', { hasText: '保存成功' }).waitFor();
    const card = page.locator('.hospital-card', { hasText: '第一人民医院' });
    await card.getByText('人民路1号').waitFor();
    await card.getByRole('button', { name: '编辑' }).click();
    const edit = page.getByRole('dialog', { name: '编辑医院' });
    await settle(page);
    await edit.getByLabel('地址').fill('人民路2号');
    await edit.getByRole('button', { name: /^确\s?定$/ }).click();
    await card.getByText('人民路2号').waitFor();
    await screenshot(page, 'department');
    await expectAccessible(page, 'department');
  });
});
