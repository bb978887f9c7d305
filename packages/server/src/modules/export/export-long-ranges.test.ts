import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFile } from '../../test/export-fixture.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * 参考范围 (issue 37) in the long CSV: each value row carries the range its value was judged by at the record's last
 * save (range_lower, range_upper, range_unit, range_source), in the unit the value was entered in; empty for items
 * no range judged and for the patient rows.
 */
let t: TestApp;
let s: TwoSiteStudy;

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  const range = await t.call(s.admin, 'POST', '/api/business/lab-ranges', {
    studyId: s.studyId,
    siteId: s.siteA,
    analyte: 'WBC',
    analyteName: '白细胞计数',
    unit: '10^9/L',
    sex: null,
    ageMin: 18,
    ageMax: null,
    lower: 3.5,
    upper: 6,
    effectiveFrom: '2020-01-01',
  });
  expect(range.status, JSON.stringify(range.body)).toBe(200);
  const save = async (subjectRecordId: number, values: Record<string, unknown>) => {
    const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: s.crfIds['实验室检查'],
      version: 0,
      values,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  await save(s.patientA.subjectRecordId, { wbc: '8.2', crp: '3', esr: '12' });
  // Patient B's hemoglobin in g/dL: the item's own range (130–175 g/L) is written in g/dL beside it.
  await save(s.patientB.subjectRecordId, { hb: '14', hb_unit: 'g/dL' });
});
afterAll(() => t.close());

const longRows = async (labels = false) => {
  const text = (await exportFile(t, { admin: s.admin, studyId: s.studyId }, { format: 'csvLong', labels })).toString(
    'utf8',
  );
  return Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true });
};

describe('参考范围 in the long CSV (issue 37)', () => {
  it('a value row carries the range used: the site’s, the item’s own, in the value’s unit; empty where none', async () => {
    const long = await longRows();
    expect(long.errors).toEqual([]);
    expect(long.meta.fields!.slice(-4)).toEqual(['range_lower', 'range_upper', 'range_unit', 'range_source']);
    const row = (code: string, item: string) => long.data.find((r) => r.subject_code === code && r.item === item)!;
    const a = s.patientA.identificationCode;
    expect(row(a, 'wbc')).toMatchObject({
      value: '8.2',
      range_lower: '3.5',
      range_upper: '6',
      range_unit: '×10⁹/L',
      range_source: 'site',
    });
    expect(row(a, 'crp')).toMatchObject({
      range_lower: '0',
      range_upper: '10',
      range_unit: 'mg/L',
      range_source: 'item',
    });
    // 血沉 has no range at all: the four cells are empty, as are a patient row's.
    const empty = { range_lower: '', range_upper: '', range_unit: '', range_source: '' };
    expect(row(a, 'esr')).toMatchObject({ value: '12', ...empty });
    expect(long.data.find((r) => r.subject_code === a && r.crf === '患者信息')).toMatchObject(empty);
    expect(row(s.patientB.identificationCode, 'hb')).toMatchObject({
      value: '14',
      range_lower: '13',
      range_upper: '17.5',
      range_unit: 'g/dL',
      range_source: 'item',
    });
  });

  it('with labels the source reads 分中心 or 项目', async () => {
    const long = await longRows(true);
    const a = s.patientA.identificationCode;
    const source = (item: string) => long.data.find((r) => r.subject_code === a && r.item === item)!.range_source;
    expect([source('wbc'), source('crp')]).toEqual(['分中心', '项目']);
  });
});
