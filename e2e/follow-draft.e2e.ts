import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';

/**
 * Follow-up plan drafts (issue 36) in the demo study, which is in production: an edit of 术后随访计划 is saved as
 * its draft (草稿) and changes nobody's visits; 查看影响 says which existing patients' visits move and which stay
 * (a done visit never moves); 发布 under a 修订名称 applies it exactly so; 放弃草稿 leaves everything as it was.
 */

const AMENDMENT = '随访方案 2.0 版修订';

let platform: Platform;
let browser: Browser;
let page: Page;
let admin: string;
let studyId: number;
let planId: number;
const crfIds: Record<string, number> = {};
const patients: Record<string, { subjectRecordId: number; identificationCode: string }> = {};

const api = <T>(method: string, url: string, body?: unknown) => callApi<T>(platform.baseUrl, method, url, admin, body);

interface Visit {
  followRecordId: number;
  visitName: string;
  plannedDate: string;
  windowStart: string;
  windowEnd: string;
  stateName: string;
  crfs: { followRecordCrfId: number }[];
}

const visitsOf = (name: string) =>
  api<Visit[]>('GET', `/api/business/subject/follows?subjectRecordId=${patients[name]!.subjectRecordId}`);

/** The date `days` from today in Shanghai (the demo study's zone). */
function shanghaiDate(days: number): string {
  return new Date(Date.now() + 8 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
}

/** A patient operated 40 days ago: 术后1月 is behind them, 术后3月 and 术后6月 ahead. A test patient tries drafts. */
async function operatedPatient(name: string, test = false) {
  patients[name] = await api('POST', '/api/business/subject', {
    studyId,
    subjectName: name,
    gender: 1,
    birth: '1958-03-02',
    diseaseCode: 'LSS',
    test,
  });
  await api('PUT', '/api/v3/business/crf', {
    subjectRecordId: patients[name]!.subjectRecordId,
    crfId: crfIds['手术记录'],
    version: 0,
    values: { op_at: `${shanghaiDate(-40)} 09:00:00` },
  });
  // Scheduling follows the save's event: wait for the three visits.
  await until(async () => (await visitsOf(name)).length === 3, `${name}: three visits scheduled`);
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
  for (const crf of await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`)) {
    crfIds[crf.title] = crf.id;
  }
  await api('PUT', '/api/v1/business/study/follow_trigger', {
    studyId,
    enabled: true,
    crfId: crfIds['手术记录'],
    itemName: 'op_at',
    offsetDays: 0,
  });
  const visit = (visitName: string, offset: number) => ({
    visitName,
    offset,
    unit: 'month',
    windowBefore: 7,
    windowAfter: 7,
    crfIds: [crfIds['术后随访']],
  });
  ({ id: planId } = await api<{ id: number }>('POST', '/api/business/follow', {
    studyId,
    planName: '术后随访计划',
    visits: [visit('术后1月', 1), visit('术后3月', 3), visit('术后6月', 6)],
  }));
  await operatedPatient('已随访患者');
  await operatedPatient('待随访患者');
  await operatedPatient('测试患者', true);
  // 已随访患者 came to 术后1月: its form submitted, so the visit is done and never moves.
  const first = (await visitsOf('已随访患者')).find((v) => v.visitName === '术后1月')!;
  await api('PUT', '/api/v3/business/crf', {
    subjectRecordId: patients['已随访患者']!.subjectRecordId,
    crfId: crfIds['术后随访'],
    version: 0,
    values: { odi: 20, fu_date: shanghaiDate(-8) },
    followRecordCrfId: first.crfs[0]!.followRecordCrfId,
    submit: true,
  });
  await until(
    async () => /完成/.test((await visitsOf('已随访患者')).find((v) => v.visitName === '术后1月')!.stateName),
    '术后1月 of 已随访患者 done',
  );
  page = await newPage(browser, platform.baseUrl);
  await signInAs(page);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const planRow = (): Locator => page.locator('.ant-table-tbody tr', { hasText: '术后随访计划' });
const notice = (text: string) => page.locator('.ant-message-notice', { hasText: text }).last().waitFor();
const visitCard = (dialog: Locator, n: number) => dialog.locator('.ant-card', { hasText: `访视 ${n}` });

/** Edits the plan in its dialog: 术后1月's window after to 14 days, 术后3月 a month later; saved as the draft. */
async function editToDraft() {
  await planRow().getByRole('button', { name: '修改', exact: true }).click();
  const dialog = page.locator('.ant-modal', { hasText: '编辑计划' });
  await dialog.getByText('项目已上线：修改随访计划将保存为草稿，发布前不影响患者的随访。').waitFor();
  await expect.poll(() => visitCard(dialog, 2).getByLabel('距触发日期').inputValue()).toBe('3');
  await visitCard(dialog, 1).getByLabel('窗口后(天)').fill('14');
  await visitCard(dialog, 2).getByLabel('距触发日期').fill('4');
  await dialog.getByRole('button', { name: '保存草稿' }).click();
  await notice('保存成功');
  await planRow().getByText('草稿', { exact: true }).waitFor();
}

describe('follow-up plan drafts in the browser', () => {
  it('an edit of a production study’s plan is saved as its draft and moves nobody’s visits', async () => {
    const before = [...(await visitsOf('已随访患者')), ...(await visitsOf('待随访患者'))];
    await page.goto(`/project/${studyId}/follow/plan`);
    await page.getByText('项目已上线：修改随访计划将保存为草稿，发布前不影响患者的随访。').first().waitFor();
    await editToDraft();
    await screenshot(page, 'follow-draft-list');
    await expectAccessible(page, 'follow-draft-list');
    expect([...(await visitsOf('已随访患者')), ...(await visitsOf('待随访患者'))]).toEqual(before);
  });

  it('a test patient follows the draft at once: the casebook shows 术后3月 a month later', async () => {
    const live = (await visitsOf('待随访患者')).find((v) => v.visitName === '术后3月')!;
    const trial = (await visitsOf('测试患者')).find((v) => v.visitName === '术后3月')!;
    expect(trial.plannedDate).not.toBe(live.plannedDate);
    await page.goto(`/crf/${patients['测试患者']!.subjectRecordId}`);
    await page.locator('.crf-follow-item', { hasText: '术后3月' }).filter({ hasText: trial.plannedDate }).waitFor();
    await screenshot(page, 'follow-draft-test-patient');
    await page.goto(`/project/${studyId}/follow/plan`);
    await planRow().getByText('草稿', { exact: true }).waitFor();
  });

  it('放弃草稿 closes the draft and leaves the plan and the visits as they were', async () => {
    const before = await visitsOf('待随访患者');
    await planRow().getByRole('button', { name: '查看影响' }).click();
    const dialog = page.locator('.ant-modal', { hasText: '发布草稿的影响：术后随访计划' });
    await dialog.getByRole('button', { name: '放弃草稿' }).click();
    await page
      .locator('.ant-modal-confirm')
      .getByRole('button', { name: /确\s*定|OK/ })
      .click();
    await notice('已放弃草稿');
    await expect.poll(() => planRow().getByText('草稿', { exact: true }).count()).toBe(0);
    expect(await visitsOf('待随访患者')).toEqual(before);
    const draft = await api<null>('GET', `/api/business/follow/draft?studyId=${studyId}&planId=${planId}`);
    expect(draft).toBeNull();
  });

  it('查看影响 lists the visits that move and the done visit that stays; 发布 applies exactly that', async () => {
    await editToDraft();
    const pending = await visitsOf('待随访患者');
    const done = await visitsOf('已随访患者');
    await planRow().getByRole('button', { name: '查看影响' }).click();
    const dialog = page.locator('.ant-modal', { hasText: '发布草稿的影响：术后随访计划' });
    const moves = dialog.getByRole('table', { name: '将变化的随访' });
    const stays = dialog.getByRole('table', { name: '保持不变的随访' });
    const threeMonths = pending.find((v) => v.visitName === '术后3月')!;
    await moves
      .locator('tr', { hasText: patients['待随访患者']!.identificationCode })
      .filter({ hasText: `改期 ${threeMonths.plannedDate} →` })
      .first()
      .waitFor();
    await stays
      .locator('tr', { hasText: patients['已随访患者']!.identificationCode })
      .filter({ hasText: '术后1月' })
      .filter({ hasText: '已完成' })
      .waitFor();
    await screenshot(page, 'follow-draft-impact');
    await expectAccessible(page, 'follow-draft-impact');

    await dialog.getByRole('button', { name: '发布', exact: true }).click();
    const publish = page.locator('.ant-modal', { hasText: '发布随访计划修订' });
    await publish.getByLabel('修订名称').fill(AMENDMENT);
    await publish.getByRole('button', { name: '发布', exact: true }).click();
    await notice('发布成功');
    await expect.poll(() => planRow().getByText('草稿', { exact: true }).count()).toBe(0);

    // The done visit kept its date and window; the pending patient's visits took the new plan.
    const doneAfter = await visitsOf('已随访患者');
    const first = (list: Visit[]) => list.find((v) => v.visitName === '术后1月')!;
    expect(first(doneAfter)).toMatchObject({
      plannedDate: first(done).plannedDate,
      windowEnd: first(done).windowEnd,
    });
    const pendingAfter = await visitsOf('待随访患者');
    expect(pendingAfter.find((v) => v.visitName === '术后3月')!.plannedDate).not.toBe(threeMonths.plannedDate);
    type Row = { name: string; kind: string };
    const listed = await api<Row[] | { list: Row[] }>('GET', `/api/business/amendments?studyId=${studyId}`);
    const rows = Array.isArray(listed) ? listed : listed.list;
    expect(rows.some((a) => a.name === AMENDMENT && a.kind === 'follow')).toBe(true);
  });
});
