import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { and, eq } from 'drizzle-orm';
import { buttonKey, labRangeImportResultSchema, labRangeListSchema, labRangeSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, crfDataRecords, doubts, labReferenceRanges } from '../../db/schema/index.js';
import { contractData } from '../../test/contract.js';
import { exportFile } from '../../test/export-fixture.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * 参考范围 (issue 37) through the HTTP API: a site's laboratory ranges loaded by hand and from a file (refused rows
 * named, never dropped), listed and changed under the site scope with reasons in the trail; a lab form of a patient
 * of that site judged by the site's range at the sample date, the range used stored and exported.
 */
let t: TestApp;
let s: TwoSiteStudy;
let labsId: number;
let noKey: string;

const BASE = '/api/business/lab-ranges';
const wbcA = {
  analyte: 'WBC',
  analyteName: '白细胞计数',
  unit: '10^9/L',
  sex: null,
  ageMin: 18,
  ageMax: null,
  lower: 3.5,
  upper: 6,
  effectiveFrom: '2020-01-01',
};

const create = (token: string, body: object) => t.call(token, 'POST', BASE, { studyId: s.studyId, ...body });
const list = async (token: string, query = '') =>
  contractData(labRangeListSchema, await t.call(token, 'GET', `${BASE}?studyId=${s.studyId}${query}`));

const upload = (token: string, fileName: string, data: Buffer | string, dryRun: boolean) => {
  const body = multipart({}, [{ fileName, data }]);
  return t.app
    .inject({
      method: 'POST',
      url: `${BASE}/import?studyId=${s.studyId}&dryRun=${dryRun}`,
      headers: { authorization: `Bearer ${token}`, ...body.headers },
      payload: body.payload,
    })
    .then((res) => ({ status: res.statusCode, body: res.json() as { code: number; msg: string; data: any } }));
};

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  labsId = s.crfIds['实验室检查']!;
  noKey = await addStudyMember(t, s.admin, s.studyId, '13700000009', {
    permissions: [buttonKey('business.quality')],
  });
});
afterAll(() => t.close());

describe('参考范围: loading and changing a site’s ranges', () => {
  let rangeA: number;
  let rangeB: number;

  it('a site’s member adds a range of their site; the trail names it', async () => {
    const res = await create(s.nurseA.token, { siteId: s.siteA, ...wbcA });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const made = labRangeSchema.parse(res.body.data);
    expect(made).toMatchObject({ siteId: s.siteA, siteName: '甲中心', analyte: 'WBC', lower: 3.5, upper: 6 });
    rangeA = made.id;
    const trail = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'lab_range.create'));
    expect(trail.map((r) => r.itemName)).toEqual(['WBC']);
  });

  it('site scope: a member of site A cannot add, see, change or delete site B’s ranges; the monitor sees both', async () => {
    expect((await create(s.nurseA.token, { siteId: s.siteB, ...wbcA })).status).toBe(403);
    const made = await create(s.nurseB.token, { siteId: s.siteB, ...wbcA, lower: 4, upper: 10 });
    expect(made.status).toBe(200);
    rangeB = made.body.data.id as number;
    expect((await list(s.nurseA.token)).list.map((r) => r.id)).toEqual([rangeA]);
    expect((await list(s.nurseA.token)).sites.map((d) => d.deptId)).toEqual([s.siteA]);
    expect((await t.call(s.nurseA.token, 'GET', `${BASE}?studyId=${s.studyId}&siteId=${s.siteB}`)).status).toBe(403);
    const change = { studyId: s.studyId, siteId: s.siteB, ...wbcA, reason: '更正' };
    expect((await t.call(s.nurseA.token, 'PUT', `${BASE}/${rangeB}`, change)).status).toBe(404);
    const del = `${BASE}/${rangeB}?studyId=${s.studyId}&reason=${encodeURIComponent('误录')}`;
    expect((await t.call(s.nurseA.token, 'DELETE', del)).status).toBe(404);
    expect((await list(s.monitor.token)).list.map((r) => r.id).sort()).toEqual([rangeA, rangeB].sort());
    expect((await list(s.monitor.token, `&siteId=${s.siteB}&analyte=WBC`)).list.map((r) => r.id)).toEqual([rangeB]);
  });

  it('needs the study key 参考范围: a member without it is refused every route', async () => {
    expect((await t.call(noKey, 'GET', `${BASE}?studyId=${s.studyId}`)).status).toBe(403);
    expect((await create(noKey, { siteId: s.siteA, ...wbcA })).status).toBe(403);
    expect((await t.call(noKey, 'GET', `${BASE}/template?studyId=${s.studyId}`)).status).toBe(403);
  });

  it('a change needs a reason, and the trail keeps the range before and after with it', async () => {
    const body = { studyId: s.studyId, siteId: s.siteB, ...wbcA, lower: 4, upper: 11 };
    expect((await t.call(s.nurseB.token, 'PUT', `${BASE}/${rangeB}`, body)).status).toBe(400);
    const res = await t.call(s.nurseB.token, 'PUT', `${BASE}/${rangeB}`, { ...body, reason: '检验科更新' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.upper).toBe(11);
    const [row] = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'lab_range.update'));
    expect(row).toMatchObject({ reason: '检验科更新', oldValue: { upper: 10 }, newValue: { upper: 11 } });
  });

  it('refuses a range whose bounds or age band are out of order', async () => {
    const res = await create(s.nurseA.token, { siteId: s.siteA, ...wbcA, lower: 9, upper: 3 });
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain('下限不能大于上限');
  });

  it('a deletion needs a reason and is audited', async () => {
    const made = await create(s.nurseB.token, { siteId: s.siteB, ...wbcA, analyte: 'PLT' });
    const id = made.body.data.id as number;
    expect((await t.call(s.nurseB.token, 'DELETE', `${BASE}/${id}?studyId=${s.studyId}`)).status).toBe(400);
    const del = await t.call(
      s.nurseB.token,
      'DELETE',
      `${BASE}/${id}?studyId=${s.studyId}&reason=${encodeURIComponent('误录')}`,
    );
    expect(del.status).toBe(200);
    expect(await t.db.select().from(labReferenceRanges).where(eq(labReferenceRanges.id, id))).toEqual([]);
    const [row] = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'lab_range.delete'));
    expect(row).toMatchObject({ itemName: 'PLT', reason: '误录' });
  });
});

describe('参考范围: import from a file', () => {
  const header = '分中心,项目代码,项目名称,单位,性别,年龄下限,年龄上限,下限,上限,生效日期';

  it('the preview lists every refused row with its row number and reason, and writes nothing', async () => {
    const csv = [
      header,
      '甲中心,HGB,血红蛋白,g/L,男,18,,130,175,2020-01-01',
      '乙中心,HGB,血红蛋白,g/L,女,18,,115,150,2020-01-01',
      '丙中心,HGB,血红蛋白,g/L,,,,115,150,2020-01-01',
      '甲中心,ALT,丙氨酸氨基转移酶,U/L,未知,,,9,50,2020-13-01',
      '甲中心,AST,,U/L,,,,,,2020-01-01',
    ].join('\n');
    const res = await upload(s.nurseA.token, 'ranges.csv', csv, true);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const result = labRangeImportResultSchema.parse(res.body.data);
    expect(result.accepted.map((r) => [r.analyte, r.sex, r.lower, r.upper])).toEqual([['HGB', 1, 130, 175]]);
    expect(result.refused.map((r) => r.row)).toEqual([3, 4, 5, 6]);
    expect(result.refused[0]!.reason).toBe('该分中心不在您的数据范围内');
    expect(result.refused[1]!.reason).toContain('分中心“丙中心”不存在');
    expect(result.refused[2]!.reason).toContain('性别“未知”无法识别');
    expect(result.refused[2]!.reason).toContain('生效日期');
    expect(result.refused[3]!.reason).toBe('下限与上限至少填写一个');
    expect(await t.db.select().from(labReferenceRanges).where(eq(labReferenceRanges.analyte, 'HGB'))).toEqual([]);
  });

  it('a file with a refused row is not imported at all', async () => {
    const csv = [header, '甲中心,HGB,血红蛋白,g/L,男,18,,130,175,2020-01-01', '乙中心,HGB,,g/L,,,,1,2,2020-01-01'];
    const res = await upload(s.nurseA.token, 'ranges.csv', csv.join('\n'), false);
    expect(res.status).toBe(400);
    expect(res.body.data.refused).toEqual([{ row: 3, reason: '该分中心不在您的数据范围内' }]);
    expect(await t.db.select().from(labReferenceRanges).where(eq(labReferenceRanges.analyte, 'HGB'))).toEqual([]);
  });

  it('the template downloads, and filled in as Excel it imports every row, audited', async () => {
    const tpl = await t.app.inject({
      method: 'GET',
      url: `${BASE}/template?studyId=${s.studyId}`,
      headers: { authorization: `Bearer ${s.nurseA.token}` },
    });
    expect(tpl.statusCode).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(tpl.rawPayload as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(header.split(','));
    sheet.spliceRows(2, 1);
    sheet.addRow(['甲中心', 'HGB', '血红蛋白', 'g/L', '男', 18, null, 130, 175, new Date(Date.UTC(2020, 0, 1))]);
    sheet.addRow(['甲中心', 'HGB', '血红蛋白', 'g/L', '女', 18, null, 115, 150, '2020/1/1']);
    const data = Buffer.from(await book.xlsx.writeBuffer());
    const res = await upload(s.nurseA.token, 'ranges.xlsx', data, false);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ imported: 2, refused: [] });
    const rows = await t.db.select().from(labReferenceRanges).where(eq(labReferenceRanges.analyte, 'HGB'));
    expect(rows.map((r) => [r.siteId, r.sex, Number(r.lower), r.effectiveFrom]).sort()).toEqual([
      [s.siteA, 1, 130, '2020-01-01'],
      [s.siteA, 2, 115, '2020-01-01'],
    ]);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'lab_range.import'))).toHaveLength(2);
  });
});

describe('参考范围: a lab form judged by the patient’s site range', () => {
  let recordA: number;
  let recordB: number;

  const save = async (subjectRecordId: number, values: Record<string, unknown>, submit = false) => {
    const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: labsId,
      version: 0,
      values,
      submit,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.crfDataRecordId as number;
  };

  it('stores the site range for a patient of the site, and the item’s own range where the site has none', async () => {
    // A range taking effect after the sample date is not the one used.
    await create(s.admin, { siteId: s.siteA, ...wbcA, lower: 1, upper: 2, effectiveFrom: '2099-01-01' });
    await t.call(s.admin, 'POST', '/api/business/study/doubt', { studyId: s.studyId, doubt: '1' });
    recordA = await save(s.patientA.subjectRecordId, { wbc: '8.2', hb: '140', crp: '3' }, true);
    recordB = await save(s.patientB.subjectRecordId, { wbc: '8.2', hb: '140' }, true);
    const [a] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, recordA));
    expect(a!.labRanges).toMatchObject({
      wbc: { lower: 3.5, upper: 6, unit: '10^9/L', source: 'site' },
      hb: { lower: 130, upper: 175, source: 'site' },
      crp: { lower: 0, upper: 10, source: 'item', rangeId: null },
    });
    const [b] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, recordB));
    // Site B's WBC range is for 18 and over: patient B (born 1960) is; its 4–11 is used.
    expect(b!.labRanges).toMatchObject({ wbc: { lower: 4, upper: 11, source: 'site' }, hb: { source: 'item' } });
  });

  it('before a save the form page reads the ranges the save would use (applicable): form view key, own site only', async () => {
    const url = (subjectRecordId: number, more = '') =>
      `${BASE}/applicable?studyId=${s.studyId}&subjectRecordId=${subjectRecordId}&crfId=${labsId}${more}`;
    const fresh = await t.call(s.nurseA.token, 'GET', url(s.patientA.subjectRecordId));
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.body.data).toMatchObject({ wbc: { lower: 3.5, upper: 6, unit: '10^9/L' }, hb: { lower: 130 } });
    // Only site ranges: crp keeps the item's own, which the form already has.
    expect(fresh.body.data.crp).toBeUndefined();
    const saved = await t.call(s.nurseA.token, 'GET', url(s.patientA.subjectRecordId, `&crfDataRecordId=${recordA}`));
    expect(saved.body.data).toEqual(fresh.body.data);
    expect((await t.call(s.nurseA.token, 'GET', url(s.patientB.subjectRecordId))).status).toBe(404);
    expect(
      (await t.call(s.nurseA.token, 'GET', url(s.patientA.subjectRecordId, `&crfDataRecordId=${recordB}`))).status,
    ).toBe(404);
    // A member who may not view the form: refused (the 参考范围 settings key is not what it needs).
    expect((await t.call(noKey, 'GET', url(s.patientA.subjectRecordId))).status).toBe(403);
  });

  it('the ↑ of the site range raises the system query (白细胞 8.2 above site A’s 6, within the item’s 9.5)', async () => {
    const queries = await t.db
      .select({ item: doubts.itemName, text: doubts.doubtDescription, record: doubts.crfDataRecordId })
      .from(doubts)
      .where(and(eq(doubts.studyId, s.studyId), eq(doubts.crfId, labsId)));
    expect(queries.filter((q) => q.record === recordA).map((q) => q.text)).toEqual(['白细胞高于参考范围，请核实']);
    expect(queries.filter((q) => q.record === recordB)).toEqual([]);
  });

  it('the export carries the range used: wbc_lower and wbc_upper after wbc, for items judged by a site range', async () => {
    const text = (await exportFile(t, { admin: s.admin, studyId: s.studyId }, { format: 'csvWide' })).toString('utf8');
    const wide = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
      header: true,
      skipEmptyLines: true,
    });
    const fields = wide.meta.fields!;
    expect(fields.indexOf('wbc_lower')).toBe(fields.indexOf('wbc') + 1);
    expect(fields.indexOf('wbc_upper')).toBe(fields.indexOf('wbc') + 2);
    // Only items some record was judged by a site range for get the columns: CRP (its own range only) has none.
    expect(fields).not.toContain('crp_lower');
    expect(fields).not.toContain('esr_lower');
    const rowOf = (code: string) =>
      wide.data.find((r) => r.subject_code === code && r.wbc !== '' && r.wbc !== undefined);
    expect(rowOf(s.patientA.identificationCode)).toMatchObject({
      wbc: '8.2',
      wbc_lower: '3.5',
      wbc_upper: '6',
      hb_lower: '130',
    });
    // Patient B's hb was judged by the item's own range (site B has none for HGB): that is the range it carries.
    expect(rowOf(s.patientB.identificationCode)).toMatchObject({ wbc_lower: '4', wbc_upper: '11', hb_lower: '130' });
  });
});
