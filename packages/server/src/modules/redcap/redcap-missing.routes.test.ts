import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * 缺失原因 (issue 37) through the REDCap-compatible API, REDCap's way: the project's missing_data_codes, and a marked
 * field exported with its code as the value.
 */
let t: TestApp;
let token: string;
let code: string;

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
  const { admin, studyId, crfIds } = await openDemoStudy(t);
  const patient = await enrolDemoPatient(t, admin, studyId, { subjectName: '缺失代码' });
  code = patient.identificationCode;
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
});
