import ExcelJS from 'exceljs';
import { IMPACT_KIND_NAMES } from '@ecrf/core';
import { and, asc, eq, gt } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, crfDataRecords, signatures } from '../../db/schema/index.js';
import { verifyAuditChains } from '../audit/audit-chain.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';
import {
  enrol,
  migrate,
  openAmendmentStudy,
  save,
  uploadDraft,
  V2,
  type AmendmentStudy,
} from './amendment-test-kit.js';

/**
 * The impact report and the migration on a hand-built case (amendment-test-kit.ts: 随访评估 v1 → v2), one record per
 * patient, each showing one thing:
 *   R1 unchanged (submitted, signed, SDV)   R2 calculation (signed, SDV of 指数 and of the whole form)
 *   R3 hidden by skip logic (submitted, SDV) R4 out of the new range and calculation (record locked)
 *   R5 removed item and an invalid retype    R6 converted retype
 * R1, R2, R5 at site A; R3, R4, R6 at site B.
 */

let t: TestApp;
let s: AmendmentStudy;
const R: Record<string, { id: number; subjectRecordId: number }> = {};
const NAME = '2026年第1次方案修订';
let amendmentId: number;

const recordOf = async (key: string) =>
  (await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, R[key]!.id)))[0]!;
const signatureOf = async (key: string) =>
  (await t.db.select().from(signatures).where(eq(signatures.subjectRecordId, R[key]!.subjectRecordId)))[0]!;

beforeAll(async () => {
  t = await createTestApp();
  const admin = (await t.login()).token;
  s = await openAmendmentStudy(t, admin);
  const cases: Array<[string, number, Record<string, unknown>, boolean]> = [
    ['R1', s.siteA, { sex: '1', smoke: '无' }, true],
    ['R2', s.siteA, { sex: '1', weight: '80' }, false],
    ['R3', s.siteB, { sex: '2', smoke: '5年' }, true],
    ['R4', s.siteB, { sex: '1', weight: '180' }, false],
    ['R5', s.siteA, { sex: '1', note: '旧备注', score: 'abc' }, false],
    ['R6', s.siteB, { sex: '1', allergy: 'a,c' }, false],
  ];
  for (const [key, siteId, values, submit] of cases) {
    const p = await enrol(t, s, { siteId });
    const saved = await save(t, s, p.subjectRecordId, values, { submit });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    R[key] = { id: saved.body.data.crfDataRecordId, subjectRecordId: p.subjectRecordId };
  }
  const sdv = async (key: string, itemNames?: string[]) => {
    const res = await t.call(admin, 'PUT', '/api/business/crf/sdv', {
      crfDataRecordId: R[key]!.id,
      ...(itemNames ? { itemNames } : {}),
      verified: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  await sdv('R1', ['smoke']);
  await sdv('R2');
  await sdv('R3', ['smoke']);
  for (const key of ['R1', 'R2']) {
    const signed = await t.call(admin, 'PUT', '/api/v1/business/subject/sign', {
      subjectRecordId: R[key]!.subjectRecordId,
      password: TEST_ADMIN_PASSWORD,
    });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
  }
  const locked = await t.call(admin, 'PUT', '/api/business/lock', {
    studyId: s.studyId,
    scope: 'record',
    targetId: R['R4']!.id,
    locked: true,
    reason: '核查完成',
  });
  expect(locked.status, JSON.stringify(locked.body)).toBe(200);
  expect((await uploadDraft(t, admin, s.studyId, V2)).status).toBe(200);
});
afterAll(() => t.close());

const q = () => `studyId=${s.studyId}&crfId=${s.crfId}`;

describe('the impact report of a CRF draft', () => {
  it('counts the records and names every finding of the hand-built case', async () => {
    const res = await t.call(s.admin, 'GET', `/api/system/crf/draft/impact?${q()}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      crfId: s.crfId,
      fromVersion: 1,
      toVersion: 2,
      diff: {
        added: [{ name: 'alcohol', label: '饮酒', type: 'input' }],
        removed: [{ name: 'note', label: '备注', type: 'input' }],
        renamed: [],
        retyped: [
          { name: 'score', label: '评分', fromType: 'input', toType: 'int' },
          { name: 'allergy', label: '过敏', fromType: 'multiSelect', toType: 'checkbox' },
        ],
      },
      records: { total: 6, submitted: 2, signed: 2, sdvVerified: 3, locked: 1, changed: 4, unchanged: 2 },
      findings: expect.arrayContaining([
        { kind: 'removed', itemName: 'note', label: '备注', count: 1 },
        { kind: 'hidden', itemName: 'smoke', label: '吸烟史', count: 1 },
        { kind: 'converted', itemName: 'allergy', label: '过敏', count: 1 },
        { kind: 'calculation', itemName: 'bmi', label: '指数', count: 2 },
        { kind: 'invalid', itemName: 'score', label: '评分', count: 1 },
        { kind: 'outOfRange', itemName: 'weight', label: '体重', count: 1 },
      ]),
    });
    expect(res.body.data.findings).toHaveLength(6);
  });

  it('drills down to the records, by kind and item, with their states and values', async () => {
    const all = await t.call(s.admin, 'GET', `/api/system/crf/draft/impact/records?${q()}&pageSize=50`);
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.data.total).toBe(7);
    const calc = await t.call(s.admin, 'GET', `/api/system/crf/draft/impact/records?${q()}&kind=calculation`);
    expect(calc.body.data).toEqual({
      total: 2,
      rows: [
        expect.objectContaining({
          crfDataRecordId: R['R2']!.id,
          subjectRecordId: R['R2']!.subjectRecordId,
          identificationCode: expect.any(String),
          siteName: expect.stringContaining('甲中心'),
          itemName: 'bmi',
          label: '指数',
          kind: 'calculation',
          oldValue: '40',
          newValue: '20',
          submitted: false,
          signed: true,
          sdvVerified: true,
          locked: false,
        }),
        expect.objectContaining({ crfDataRecordId: R['R4']!.id, oldValue: '90', newValue: '45', locked: true }),
      ],
    });
    const hidden = await t.call(s.admin, 'GET', `/api/system/crf/draft/impact/records?${q()}&itemName=smoke`);
    expect(hidden.body.data.rows).toEqual([
      expect.objectContaining({
        crfDataRecordId: R['R3']!.id,
        kind: 'hidden',
        oldValue: '5年',
        newValue: null,
        submitted: true,
      }),
    ]);
    const paged = await t.call(s.admin, 'GET', `/api/system/crf/draft/impact/records?${q()}&pageSize=3&pageNum=3`);
    expect(paged.body.data).toEqual({ total: 7, rows: [all.body.data.rows[6]] });
  });

  it('downloads as an Excel workbook (影响报告) with the summary and one row per finding', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/system/crf/draft/impact/export?${q()}`,
      headers: { authorization: `Bearer ${s.admin}` },
    });
    expect(res.statusCode).toBe(200);
    expect(decodeURIComponent(String(res.headers['content-disposition']))).toContain('随访评估-影响报告.xlsx');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const detail = book.getWorksheet('明细')!;
    const rows = detail.getSheetValues().slice(1) as unknown[][];
    expect(rows).toHaveLength(8);
    expect(rows[0]!.slice(1, 7)).toEqual(['患者编号', '中心', '表单记录ID', '题目', '题目名', '影响']);
    const r3 = rows.find((r) => r[3] === R['R3']!.id)!;
    expect(r3.slice(4, 10)).toEqual(['吸烟史', 'smoke', IMPACT_KIND_NAMES.hidden, '5年', '', '是']);
    const summary = book.getWorksheet('汇总')!;
    const text = JSON.stringify(summary.getSheetValues());
    expect(text).toContain('"记录总数",6');
    expect(text).toContain('"已锁定（不迁移）",1');
  });
});

describe('publishing and migrating', () => {
  it('publishes the draft as an amendment whose records all remain to move', async () => {
    const published = await t.call(s.admin, 'POST', '/api/system/crf/draft/publish', {
      studyId: s.studyId,
      crfId: s.crfId,
      name: NAME,
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    amendmentId = published.body.data.amendmentId;
    const list = await t.call(s.admin, 'GET', `/api/business/amendments?studyId=${s.studyId}`);
    expect(list.body.data).toEqual([
      expect.objectContaining({
        id: amendmentId,
        name: NAME,
        kind: 'crf',
        crfId: s.crfId,
        crfTitle: '随访评估',
        fromVersion: 1,
        toVersion: 2,
        remaining: 6,
        report: expect.objectContaining({ records: expect.objectContaining({ total: 6, changed: 4 }) }),
      }),
    ]);
    const impact = await t.call(s.admin, 'GET', `/api/business/amendment/${amendmentId}/impact?studyId=${s.studyId}`);
    expect(impact.body.data.records).toEqual(list.body.data[0].report.records);
  });

  it('moves listed records: values per the engine, an audit row with the amendment as reason, and signature and SDV voided with it', async () => {
    const since = (await t.db.select({ id: auditEvents.id }).from(auditEvents).orderBy(asc(auditEvents.id))).at(-1)!.id;
    const job = await migrate(t, s, amendmentId, { kind: 'records', crfDataRecordIds: [R['R2']!.id] });
    expect(job.state).toBe('done');
    expect(job.result).toEqual({ moved: 1, changed: 1, skippedLocked: 0, failed: 0 });
    const r2 = await recordOf('R2');
    expect(r2).toMatchObject({ crfVersion: 2, values: { sex: '1', weight: '80', bmi: '20' }, sdv: {} });
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), gt(auditEvents.id, since)))
      .orderBy(asc(auditEvents.id));
    expect(rows.map((r) => [r.action, r.itemName, r.oldValue, r.newValue, r.reason])).toEqual([
      ['crf.migrate', null, 1, 2, NAME],
      // The trail's value of a number item is the number (as for every writer).
      ['item.update', 'bmi', 40, 20, NAME],
      ['sdv.clear', 'bmi', null, null, NAME],
      ['sdv.clear', '__form__', null, null, NAME],
      ['subject.sign_invalidated', null, [(await signatureOf('R2')).id], null, NAME],
    ]);
    expect(await signatureOf('R2')).toMatchObject({ invalidatedReason: NAME, invalidatedAt: expect.any(Date) });
    expect((await verifyAuditChains(t.db)).ok).toBe(true);
  });

  it('moves a site’s records, never a locked one', async () => {
    const job = await migrate(t, s, amendmentId, { kind: 'sites', deptIds: [s.siteB] }, '按中心迁移');
    expect(job.result).toEqual({ moved: 2, changed: 2, skippedLocked: 1, failed: 0 });
    expect(await recordOf('R3')).toMatchObject({ crfVersion: 2, values: { sex: '2' }, sdv: {} });
    expect((await recordOf('R6')).values).toMatchObject({ allergy: ['a', 'c'] });
    expect(await recordOf('R4')).toMatchObject({ crfVersion: 1, values: { weight: '180', bmi: '90' } });
    const [moved] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.crfDataRecordId, R['R3']!.id), eq(auditEvents.action, 'crf.migrate')));
    expect(moved!.reason).toBe(`${NAME}：按中心迁移`);
    // Site A's records are still to move.
    expect((await recordOf('R1')).crfVersion).toBe(1);
  });

  it('moves all the rest: where values do not change the signature and SDV stay; the removed item’s value stays stored and exportable', async () => {
    const job = await migrate(t, s, amendmentId, { kind: 'all' });
    expect(job.result).toEqual({ moved: 2, changed: 0, skippedLocked: 1, failed: 0 });
    const r1 = await recordOf('R1');
    expect(r1).toMatchObject({ crfVersion: 2, values: { sex: '1', smoke: '无' } });
    expect(Object.keys(r1.sdv)).toEqual(['smoke']);
    expect((await signatureOf('R1')).invalidatedAt).toBeNull();
    const r5 = await recordOf('R5');
    expect(r5).toMatchObject({ crfVersion: 2, values: { note: '旧备注', score: 'abc' } });
    // A later save on the page (which does not show 备注) keeps it too.
    const resaved = await save(t, s, R['R5']!.subjectRecordId, { sex: '1', score: '7' }, { record: r5 });
    expect(resaved.status, JSON.stringify(resaved.body)).toBe(200);
    expect((await recordOf('R5')).values).toEqual({ sex: '1', score: '7', note: '旧备注' });
    // Only the move is audited for an unchanged record.
    const r1Rows = await t.db
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(and(eq(auditEvents.crfDataRecordId, R['R1']!.id), eq(auditEvents.reason, NAME)));
    expect(r1Rows.map((r) => r.action)).toEqual(['crf.migrate']);
    const list = await t.call(s.admin, 'GET', `/api/business/amendments?studyId=${s.studyId}`);
    expect(list.body.data[0].remaining).toBe(1);
    const left = await t.call(s.admin, 'GET', `/api/business/amendment/${amendmentId}/impact?studyId=${s.studyId}`);
    expect(left.body.data.records).toMatchObject({ total: 1, locked: 1 });

    // The removed item's value is in the record's history, and in the trail's export.
    const exported = await t.app.inject({
      method: 'GET',
      url: `/api/business/audit/export?crfDataRecordId=${R['R5']!.id}`,
      headers: { authorization: `Bearer ${s.admin}` },
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.body).toContain('旧备注');
  });
});
