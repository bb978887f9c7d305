import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { CrfDefinition, CrfNode } from '@ecrf/core';
import {
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  settle,
  startPlatform,
  type Platform,
} from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';
import { pickMore } from './tables.js';

/**
 * Amendments that carry the data (issue 36), in the demo study, which is in production: a changed 生命体征 goes
 * into the CRF's draft, the impact report says what publishing it does to the two patients' records, the draft is
 * published under an amendment's name, and 方案修订 moves every record to the new version as a background job.
 */

const AMENDMENT = '方案 2.0 版修订';

let platform: Platform;
let browser: Browser;
let admin: string;
let studyId: number;
let vitalsId: number;
let files: string;

const api = <T>(method: string, url: string, body?: unknown) => callApi<T>(platform.baseUrl, method, url, admin, body);

/** 生命体征 version 2: 心率 removed, 收缩压 at most 150 (was 260), 血氧饱和度 and a calculated 脉压 added. */
function amended(definition: CrfDefinition): CrfDefinition {
  const change = (nodes: CrfNode[]): CrfNode[] =>
    nodes
      .filter((node) => node.name !== 'hr')
      .map((node) => {
        if (node.name === 'sbp') {
          const option = node.option as { validate?: object };
          return { ...node, option: { ...node.option, validate: { ...option.validate, max: 150 } } };
        }
        if (node.name === 'vs') {
          return {
            ...node,
            children: [
              ...change(node.children ?? []),
              { name: 'spo2', title: '血氧饱和度', type: 'int', option: { units: '%' }, children: [] },
              {
                name: 'pp',
                title: '脉压',
                type: 'int',
                option: { units: 'mmHg', calc: 'sbp - dbp', readOnly: 1 },
                children: [],
              },
            ],
          };
        }
        return { ...node, children: change(node.children ?? []) };
      });
  return { ...definition, children: change(definition.children) };
}

beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchBrowser();
  ({ token: admin, studyId } = await prepareAdmin(platform.baseUrl));
  const crfs = await api<Array<{ id: number; title: string }>>('GET', `/api/system/crf/list?studyId=${studyId}`);
  vitalsId = crfs.find((crf) => crf.title === '生命体征')!.id;

  // Two patients with vital signs on version 1: one within the new range of 收缩压, one above it.
  for (const [subjectName, values] of [
    ['钱一', { sbp: 128, dbp: 82, hr: 76 }],
    ['孙二', { sbp: 160, dbp: 90, hr: 80 }],
  ] as const) {
    const patient = await api<{ subjectRecordId: number }>('POST', '/api/business/subject', {
      studyId,
      subjectName,
      gender: 1,
      birth: '1960-03-08',
      diseaseCode: 'LSS',
    });
    await api('PUT', '/api/v3/business/crf', {
      subjectRecordId: patient.subjectRecordId,
      crfId: vitalsId,
      version: 0,
      values,
    });
  }

  const current = await api<{ definition: CrfDefinition }>('GET', `/api/system/crf/${vitalsId}`);
  files = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-amendment-'));
  fs.writeFileSync(path.join(files, 'vitals-v2.json'), JSON.stringify(amended(current.definition)));
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  if (files) fs.rmSync(files, { recursive: true, force: true });
});

const vitalsRow = (page: Page) => page.getByRole('row').filter({ hasText: '生命体征' });

/** The number in one of the report's count boxes. */
const countIn = async (page: Page, label: string) =>
  (await page.getByRole('group', { name: label, exact: true }).locator('.amendment-count-value').textContent())?.trim();

describe('CRF amendments in a production study', () => {
  it('a changed CRF goes into the draft, its impact is reported, it is published under a name and every record is migrated', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page);
    await page.goto(`/study/crf?studyId=${studyId}`);
    await page.locator('.page-title:visible', { hasText: 'CRF管理' }).waitFor();
    await vitalsRow(page).getByText('第 1 版').waitFor();

    // 上传到草稿: the upload lands in the draft; the published version stays 1.
    const chooser = page.waitForEvent('filechooser');
    await pickMore(page, vitalsRow(page), '上传到草稿');
    await (await chooser).setFiles(path.join(files, 'vitals-v2.json'));
    // Clean, a message says so; with the converter's notes or warnings the result dialog does.
    const result = page.getByRole('dialog', { name: '上传结果' });
    await page
      .locator('.ant-message-notice', { hasText: '已上传到草稿：生命体征（第 2 版）' })
      .or(result.getByText('生命体征（第 2 版）'))
      .first()
      .waitFor();
    if (await result.isVisible()) {
      await result.getByRole('button', { name: '确定' }).click();
      await result.waitFor({ state: 'hidden' });
    }
    await vitalsRow(page).getByText('草稿', { exact: true }).waitFor();
    expect(await vitalsRow(page).textContent()).toContain('第 1 版');
    await screenshot(page, 'crf-draft-tag');

    // 查看影响: counts, findings per kind and item, the records behind a finding.
    await pickMore(page, vitalsRow(page), '查看影响');
    await page.waitForURL(/\/study\/amendment\/impact\?studyId=\d+&crfId=\d+/);
    await page.locator('.page-title', { hasText: '影响报告 · 生命体征' }).waitFor();
    await page.getByText('发布草稿（第 1 版 → 第 2 版）对已有数据的影响').waitFor();
    expect(await countIn(page, '删除题目')).toBe('1');
    expect(await countIn(page, '新增题目')).toBe('2');
    expect(await countIn(page, '记录总数')).toBe('2');
    const findings = page.getByRole('region', { name: '影响明细' });
    const removed = findings.getByRole('row').filter({ hasText: '题目已删除（数据保留在历史中）' });
    expect(await removed.textContent()).toContain('心率');
    expect(await removed.getByRole('cell').nth(2).textContent()).toBe('2');
    const range = findings.getByRole('row').filter({ hasText: '超出新范围' });
    expect(await range.textContent()).toContain('收缩压');
    expect(await range.getByRole('cell').nth(2).textContent()).toBe('1');

    await page.getByRole('button', { name: '查看记录 超出新范围 收缩压' }).click();
    await page.getByText('受影响的记录 · 超出新范围 · 收缩压').waitFor();
    const records = page.getByRole('region', { name: '受影响的记录' });
    await records.getByRole('row').filter({ hasText: '160' }).waitFor();
    // The table first lists every finding, then the chosen one's: the 160 row is in both, so wait for the filter.
    await expect.poll(() => records.locator('tbody tr.ant-table-row').count()).toBe(1);
    await settle(page);
    await screenshot(page, 'crf-amendment-impact');
    await expectAccessible(page, 'crf-amendment-impact');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: '导出Excel' }).click();
    expect((await download).suggestedFilename()).toMatch(/\.xlsx$/);

    // 发布: a name is required; the report then covers the records still on version 1.
    await page.locator('.study-page-head-extra').getByRole('button', { name: '发布' }).click();
    const publish = page.getByRole('dialog', { name: '发布草稿' });
    await publish.getByText('已有记录 2 条', { exact: false }).waitFor();
    await publish.getByRole('button', { name: '发布' }).click();
    await publish.getByText('请填写修订名称').waitFor();
    await publish.getByLabel('修订名称').fill(AMENDMENT);
    await publish.getByRole('button', { name: '发布' }).click();
    await publish.waitFor({ state: 'detached' });
    await page.getByText(`方案修订“${AMENDMENT}”（第 1 版 → 第 2 版）：尚未迁移的记录`).waitFor();
    await page.waitForURL(/amendmentId=\d+/);
    // The published draft is not asked for again: no 该CRF没有草稿 after a successful publish.
    await page.getByText('影响明细', { exact: true }).waitFor();
    expect(await page.locator('.ant-message-notice', { hasText: '该CRF没有草稿' }).count()).toBe(0);

    // 方案修订: 迁移数据 of every remaining record, with the job's progress and result.
    await page.getByRole('button', { name: '返回' }).click();
    await page.waitForURL(/\/study\/config\?studyId=\d+&tab=amendments/);
    const amendments = page.getByRole('region', { name: '方案修订' });
    const row = amendments.getByRole('row').filter({ hasText: AMENDMENT });
    await row.waitFor();
    expect(await row.textContent()).toContain('第 1 版 → 第 2 版');
    expect(await row.textContent()).toContain('生命体征');
    await screenshot(page, 'crf-amendments');
    await expectAccessible(page, 'crf-amendments');

    await row.getByRole('button', { name: '迁移数据' }).click();
    const migrate = page.getByRole('dialog', { name: `迁移数据 · ${AMENDMENT}` });
    await migrate.getByText('全部待迁移记录（2 条）').waitFor();
    expect(await migrate.getByLabel('全部', { exact: true }).isChecked()).toBe(true);
    await migrate.getByLabel('原因').fill('按方案 2.0 版迁移');
    await migrate.getByRole('button', { name: '开始迁移' }).click();
    await migrate.getByText('迁移完成').waitFor();
    expect(await migrate.textContent()).toMatch(/已迁移 2、数据变化 \d+、锁定跳过 0/);
    await screenshot(page, 'crf-migration-done');
    await migrate.getByRole('button', { name: '确定' }).click();
    await migrate.waitFor({ state: 'detached' });

    // Nothing is left on version 1; the CRF's published version is 2 and its draft is gone.
    await expect.poll(async () => (await row.getByRole('cell').nth(4).textContent())?.trim()).toBe('0');
    await page.goto(`/study/crf?studyId=${studyId}`);
    await vitalsRow(page).getByText('第 2 版').waitFor();
    expect(await vitalsRow(page).getByText('草稿', { exact: true }).count()).toBe(0);
    await page.context().close();
  });
});
