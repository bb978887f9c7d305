import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { addStudyMember, callApi, loginApi, prepareAdmin, signInAs } from './api.js';

/**
 * 医学编码 (issue 37) in the browser, with the made-up dictionary in MedDRA's file format the server tests use: a
 * verbatim that matches a synonym LLT is auto-coded; the coder codes an unmatched one by searching and approves the
 * auto-code from the 医学编码 tab of the 质疑列表 page; her own code is not hers to approve (编码审核, a second pair of
 * eyes): a second reviewer approves it.
 */
const REVIEWER = { userName: '13900000037', name: '审核员', password: 'Review@2024' };

const FIXTURES = path.resolve(import.meta.dirname, '../packages/server/src/test/fixtures/coding/meddra');

let platform: Platform;
let browser: Browser;
let page: Page;
let admin: string;
let studyId: number;
let historyCrf: number;

const api = <T>(method: string, url: string, body?: unknown) => callApi<T>(platform.baseUrl, method, url, admin, body);

interface CodedRow {
  id: number;
  verbatim: string;
  state: string;
}

const codedRows = async () =>
  (await api<{ list: CodedRow[] }>('GET', `/api/business/coding/items?studyId=${studyId}&pageSize=50`)).list;

async function saveHistory(crfId: number, subjectName: string, note: string) {
  const { subjectRecordId } = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', {
    studyId,
    subjectName,
    gender: 1,
    birth: '1959-02-11',
    diseaseCode: 'LSS',
  });
  await api('PUT', '/api/v3/business/crf', { subjectRecordId, crfId, version: 0, values: { history_note: note } });
}

/** Waits for a state in a hook, where expect.poll is not available. */
async function until(reached: () => Promise<boolean>, what: string) {
  for (let tries = 0; !(await reached()); tries += 1) {
    if (tries > 300) throw new Error(`not reached: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const form = new FormData();
  for (const name of fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.asc'))) {
    form.append('files', new Blob([fs.readFileSync(path.join(FIXTURES, name))]), name);
  }
  const query = new URLSearchParams({ studyId: String(studyId), kind: 'meddra', version: '1.0', language: 'zh' });
  const loaded = (await (
    await fetch(`${platform.baseUrl}/api/business/coding/dictionary?${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: form,
    })
  ).json()) as { code: number; msg: string };
  if (loaded.code !== 200) throw new Error(`dictionary: ${loaded.msg}`);
  const forms = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`);
  const history = forms.find((f) => f.title === '人口学资料')!.id;
  historyCrf = history;
  await api('PUT', '/api/business/coding/items', {
    studyId,
    items: [{ crfId: history, itemName: 'history_note', kind: 'meddra' }],
  });
  await saveHistory(history, '编码患者甲', '头疼');
  await saveHistory(history, '编码患者乙', '反胃想吐感');
  await until(async () => (await codedRows()).length === 2, 'two coded items');
  page = await newPage(browser, platform.baseUrl);
  await signInAs(page);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('医学编码 in the browser', () => {
  it('an exact synonym is auto-coded; the coder codes the other by searching; her own code is approved by another', async () => {
    expect((await codedRows()).find((r) => r.verbatim === '头疼')!.state).toBe('auto');
    await page.goto(`/project/${studyId}/doubtList`);
    await page.getByRole('tab', { name: '医学编码' }).click();
    const list = page.getByTestId('coding-list');
    const auto = list.getByRole('row').filter({ hasText: '头疼' });
    await auto.filter({ hasText: '自动编码' }).waitFor();
    expect(await auto.textContent()).toContain('头痛');

    const other = list.getByRole('row').filter({ hasText: '反胃想吐感' });
    await other.filter({ hasText: '未编码' }).waitFor();
    await other.getByRole('button', { name: '编码' }).click();
    const dialog = page.getByRole('dialog', { name: /人工编码：反胃想吐感/ });
    await dialog.getByRole('searchbox', { name: '输入名称或编码检索' }).fill('想吐');
    await dialog.getByRole('searchbox', { name: '输入名称或编码检索' }).press('Enter');
    await dialog.getByTestId('coding-hits').getByRole('row').filter({ hasText: '想吐' }).first().waitFor();
    await screenshot(page, 'coding-search');
    await dialog
      .getByTestId('coding-hits')
      .getByRole('row')
      .filter({ hasText: '想吐' })
      .first()
      .getByRole('button', { name: '选择' })
      .click();
    await other.filter({ hasText: '人工编码' }).waitFor();

    // Her own manual code cannot be selected for approval; the auto-code can.
    expect(await other.getByRole('checkbox').isDisabled()).toBe(true);
    await auto.getByRole('checkbox').check();
    await page.getByRole('button', { name: '审核所选' }).click();
    await page.locator('.ant-message-notice', { hasText: '已审核 1 条' }).waitFor();
    await auto.filter({ hasText: '已审核' }).waitFor();

    // A second reviewer holding 编码审核 approves the coder's own code.
    await addStudyMember(platform.baseUrl, admin, studyId, REVIEWER, [
      'btn:business.coding',
      'btn:business.coding.approve',
      'btn:business.subject.allSites',
      `crf:${historyCrf}:view`,
    ]);
    const reviewer = await loginApi(platform.baseUrl, REVIEWER.userName, REVIEWER.password);
    const mine = (await codedRows()).find((r) => r.verbatim === '反胃想吐感')!;
    await callApi(platform.baseUrl, 'POST', '/api/business/coding/approve', reviewer.token, {
      studyId,
      codedItemIds: [mine.id],
    });
    await expect.poll(async () => (await codedRows()).map((r) => r.state)).toEqual(['approved', 'approved']);
    await page.reload();
    await page.getByRole('tab', { name: '医学编码' }).click();
    await other.filter({ hasText: '已审核' }).waitFor();
    expect(await other.textContent()).toContain(REVIEWER.name);
    await screenshot(page, 'coding-approved');
    await expectAccessible(page, 'coding-approved');
  });
});
