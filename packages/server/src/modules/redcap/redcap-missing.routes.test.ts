import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crfDataRecords, subjectRecords } from '../../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * 缺失原因 (issue 37) through the REDCap-compatible API, REDCap's way: the project's missing_data_codes, and a marked
 * field exported with its code as the value.
 */
let t: TestApp;
let token: string;
let code: string;
let subjectRecordId: number;
let crfIds: Record<string, number>;

async function redcap(params: Record<string, string>) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/redcap',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(params).toString(),
  });
  return { status: res.statusCode, json: () => res.json() };
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-redcap-missing-test-${process.pid}` } });
  const demo = await openDemoStudy(t);
  const { admin, studyId } = demo;
  crfIds = demo.crfIds;
  const patient = await enrolDemoPatient(t, admin, studyId, { subjectName: '缺失代码' });
  code = patient.identificationCode;
  subjectRecordId = patient.subjectRecordId;
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: patient.subjectRecordId,
    crfId: crfIds['生命体征'],
    version: 0,
    values: { dbp: '80' },
    missing: { sbp: 'ND' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  const created = await t.call(admin, 'POST', '/api/system/user/profile/apiToken', { studyId });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  token = created.body.data.token;
});
afterAll(() => t.close());

describe('missing-data codes in the REDCap API', () => {
  it('export project info lists missing_data_codes as REDCap writes them', async () => {
    const res = await redcap({ token, content: 'project', format: 'json' });
    expect(res.status).toBe(200);
    expect(res.json().missing_data_codes).toBe('ND, 未查 | NA, 不适用 | UNK, 未知 | ASKU, 拒绝回答');
  });

  it('export records: a marked field holds its code (raw and label exports alike)', async () => {
    for (const rawOrLabel of ['raw', 'label']) {
      const res = await redcap({ token, content: 'record', format: 'json', type: 'flat', rawOrLabel });
      expect(res.status).toBe(200);
      const row = (res.json() as Array<Record<string, string>>).find((r) => r.record_id === code && 'sbp' in r)!;
      expect(row).toMatchObject({ sbp: 'ND', dbp: '80' });
    }
  });

  /** The stored record of a form of the patient: its values and its marks. */
  async function stored(form: string) {
    const [row] = await t.db
      .select({ values: crfDataRecords.values, missing: crfDataRecords.missing })
      .from(crfDataRecords)
      .innerJoin(subjectRecords, eq(subjectRecords.id, crfDataRecords.subjectRecordId))
      .where(and(eq(crfDataRecords.subjectRecordId, subjectRecordId), eq(crfDataRecords.crfId, crfIds[form]!)));
    return row!;
  }
  const importRows = (rows: Array<Record<string, string>>, extra: Record<string, string> = {}) =>
    redcap({ token, content: 'record', action: 'import', format: 'json', data: JSON.stringify(rows), ...extra });

  it("import records: a field holding one of the study's codes is marked with it, not given a value (choice fields too)", async () => {
    const res = await importRows([{ record_id: code, sbp: 'UNK', dbp: 'NA', sex: 'ASKU' }]);
    expect(res.status, JSON.stringify(res.json())).toBe(200);
    expect(res.json()).toEqual({ count: 1 });
    const vitals = await stored('生命体征');
    expect(vitals.missing).toEqual({ sbp: 'UNK', dbp: 'NA' });
    expect(vitals.values).not.toHaveProperty('sbp');
    expect(vitals.values).not.toHaveProperty('dbp');
    const demographics = await stored('人口学资料');
    expect(demographics.missing).toEqual({ sex: 'ASKU' });
    expect(demographics.values).not.toHaveProperty('sex');
    const exported = await redcap({ token, content: 'record', format: 'json', type: 'flat' });
    const row = (exported.json() as Array<Record<string, string>>).find((r) => r.record_id === code && 'sbp' in r)!;
    expect(row).toMatchObject({ sbp: 'UNK', dbp: 'NA', sex: 'ASKU' });
  });

  it("import records: a real value clears the item's mark; other marks stay; a code the study lacks is a value", async () => {
    const res = await importRows([{ record_id: code, sbp: '120' }]);
    expect(res.status, JSON.stringify(res.json())).toBe(200);
    const vitals = await stored('生命体征');
    expect(vitals.missing).toEqual({ dbp: 'NA' });
    expect(String(vitals.values.sbp)).toBe('120');
    // "XX" is no code of the study: judged as a value of a number field and refused, nothing written.
    const refused = await importRows([{ record_id: code, dbp: 'XX' }]);
    expect(refused.status).toBe(400);
    expect((await stored('生命体征')).missing).toEqual({ dbp: 'NA' });
  });
});
