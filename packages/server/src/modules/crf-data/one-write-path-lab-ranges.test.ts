import { and, eq } from 'drizzle-orm';
import { FORM_STATE, itemAnalyte } from '@ecrf/core';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crfDataRecords, doubts, subjects } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import {
  enrol,
  FORM_TITLE,
  migrate,
  openAmendmentStudy,
  uploadDraft,
  V1,
  V2,
  type AmendmentStudy,
} from '../amendment/amendment-test-kit.js';

/**
 * 参考范围 (issue 37) on the one write path: a patient at a site with a range for an item is judged by that range and
 * the range is stored with the record (crf_data_records.lab_ranges) alike whoever writes: the form save, the Excel
 * data import's batch and an amendment's migration. The same ↑ raises the same system query.
 */

let t: TestApp;
let s: AmendmentStudy;
let rangeId: number;
// 体重 of 随访评估: no range of its own; site A's says 40–80 kg, so 90 is ↑ only by the site's range.
const weight = V1.children.find((n) => n.name === 'weight')!;
const VALUES = { sex: '1', weight: '90', bmi: '45' };

beforeAll(async () => {
  t = await createTestApp();
  const admin = (await t.login()).token;
  s = await openAmendmentStudy(t, admin);
  const doubt = await t.call(admin, 'POST', '/api/business/study/doubt', { studyId: s.studyId, doubt: '1' });
  expect(doubt.status, JSON.stringify(doubt.body)).toBe(200);
  const range = await t.call(admin, 'POST', '/api/business/lab-ranges', {
    studyId: s.studyId,
    siteId: s.siteA,
    analyte: itemAnalyte(weight),
    analyteName: '体重',
    unit: 'kg',
    sex: null,
    ageMin: null,
    ageMax: null,
    lower: 40,
    upper: 80,
    effectiveFrom: '2020-01-01',
  });
  expect(range.status, JSON.stringify(range.body)).toBe(200);
  rangeId = range.body.data.id as number;
});
afterAll(() => t.close());

const recordOf = async (subjectRecordId: number) =>
  (
    await t.db
      .select()
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.subjectRecordId, subjectRecordId), eq(crfDataRecords.crfId, s.crfId)))
  )[0]!;

/** The system queries open on the record, as their texts. */
const queriesOf = async (recordId: number) => {
  await t.ctx.events.drain();
  const rows = await t.db
    .select({ text: doubts.doubtDescription })
    .from(doubts)
    .where(and(eq(doubts.studyId, s.studyId), eq(doubts.crfDataRecordId, recordId)));
  return rows.map((r) => r.text).sort();
};

const codeOf = async (subjectId: number) =>
  (await t.db.select({ code: subjects.identificationCode }).from(subjects).where(eq(subjects.id, subjectId)))[0]!.code;

describe('参考范围 on every writer', () => {
  const seen: Record<string, { labRanges: unknown; queries: string[] }> = {};
  const SITE_RANGE = { weight: { lower: 40, upper: 80, unit: 'kg', source: 'site' } };

  it('issue 37: the form save judges 体重 90 by site A’s 40–80 kg (↑, a system query) and stores the range', async () => {
    const p = await enrol(t, s, { siteId: s.siteA });
    const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: p.subjectRecordId,
      crfId: s.crfId,
      version: 0,
      values: VALUES,
      submit: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const record = await recordOf(p.subjectRecordId);
    expect(record.labRanges).toEqual({ weight: { ...SITE_RANGE.weight, rangeId } });
    seen.save = { labRanges: record.labRanges, queries: await queriesOf(record.id) };
    expect(seen.save.queries).toEqual(['体重高于参考范围，请核实']);
  });

  it('issue 37: the Excel data import (its batch writer) judges and stores alike', async () => {
    const p = await enrol(t, s, { siteId: s.siteA });
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet(FORM_TITLE);
    // 指数 is calculated (not imported): the file holds the entered items.
    ws.addRow(['编号', '性别', '体重']);
    ws.addRow([await codeOf(p.subjectId), '男', VALUES.weight]);
    const body = multipart({}, [{ fileName: '导入.xlsx', data: Buffer.from(await wb.xlsx.writeBuffer()) }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/business/import/multi_crf_sheet/multi_thread?studyId=${s.studyId}&submitType=1&mode=patient`,
      headers: { ...body.headers, authorization: `Bearer ${s.admin}` },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    const record = await recordOf(p.subjectRecordId);
    expect(record, res.body).toBeDefined();
    seen.import = { labRanges: record.labRanges, queries: await queriesOf(record.id) };
    expect(seen.import).toEqual(seen.save);
  });

  it('issue 37: an amendment’s migration judges the moved record by the site range and stores it, as a save would', async () => {
    const p = await enrol(t, s, { siteId: s.siteA });
    // A record stored before the site range applied to it: no range recorded, no query.
    const [inserted] = await t.db
      .insert(crfDataRecords)
      .values({
        studyId: s.studyId,
        subjectRecordId: p.subjectRecordId,
        crfId: s.crfId,
        crfVersion: 1,
        state: FORM_STATE.submitted,
        version: 1,
        values: VALUES,
        singleForm: true,
      })
      .returning();
    expect(inserted!.labRanges).toEqual({});
    expect((await uploadDraft(t, s.admin, s.studyId, V2)).status).toBe(200);
    const published = await t.call(s.admin, 'POST', '/api/system/crf/draft/publish', {
      studyId: s.studyId,
      crfId: s.crfId,
      name: '参考范围修订',
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const job = await migrate(t, s, published.body.data.amendmentId as number, { kind: 'all' });
    expect(job.state, JSON.stringify(job)).toBe('done');
    const record = await recordOf(p.subjectRecordId);
    expect(record.crfVersion).toBe(2);
    const migrated = { labRanges: record.labRanges, queries: await queriesOf(record.id) };
    expect(migrated).toEqual(seen.save);
    // The records the save and the import wrote moved too, keeping the same range.
    for (const id of await t.db
      .select({ labRanges: crfDataRecords.labRanges })
      .from(crfDataRecords)
      .where(eq(crfDataRecords.crfId, s.crfId))) {
      expect(id.labRanges).toEqual(seen.save!.labRanges);
    }
  });

  it('issue 37: the impact report judges ↑/↓ by the site range as the migration will: an item range a draft adds is no new finding where the site’s range judges', async () => {
    // Site B has no range: its patient's 体重 90 is judged by the item's own range once the draft adds one.
    const b = await enrol(t, s, { siteId: s.siteB });
    const saved = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: b.subjectRecordId,
      crfId: s.crfId,
      version: 0,
      values: VALUES,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const v3 = {
      ...V2,
      children: V2.children.map((n) =>
        n.name === 'weight' ? { ...n, option: { ...n.option, refValueMaleMin: '0', refValueMaleMax: '50' } } : n,
      ),
    };
    expect((await uploadDraft(t, s.admin, s.studyId, v3)).status).toBe(200);
    const res = await t.call(s.admin, 'GET', `/api/system/crf/draft/impact?studyId=${s.studyId}&crfId=${s.crfId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.records.total).toBe(4);
    // Site A's three records stay ↑ by 40–80 kg before and after; only site B's becomes ↑ by the item's 0–50.
    expect(res.body.data.findings).toContainEqual({ kind: 'outOfRange', itemName: 'weight', label: '体重', count: 1 });
  });
});
