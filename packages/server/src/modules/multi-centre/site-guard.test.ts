import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

let t: TestApp;
let s: TwoSiteStudy;

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
});
afterAll(() => t.close());

describe('the study guard scopes every route naming a patient', () => {
  it('SUBJ-01: a nurse opens her own site patient’s forms; the other site’s answers 404 as a patient of no study', async () => {
    const own = await t.call(
      s.nurseA.token,
      'GET',
      `/api/v3/business/crf/${s.patientA.subjectRecordId}?crfId=${Object.values(s.crfIds)[0]}`,
    );
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const other = await t.call(
      s.nurseB.token,
      'GET',
      `/api/v3/business/crf/${s.patientA.subjectRecordId}?crfId=${Object.values(s.crfIds)[0]}`,
    );
    expect(other.status).toBe(404);
    expect(other.body.msg).toBe('患者不存在');
    const monitor = await t.call(
      s.monitor.token,
      'GET',
      `/api/v3/business/crf/${s.patientB.subjectRecordId}?crfId=${Object.values(s.crfIds)[0]}`,
    );
    expect(monitor.status).toBe(200);
  });

  it('a save naming the other site’s casebook is refused and writes nothing', async () => {
    const res = await t.call(s.nurseB.token, 'POST', '/api/v3/business/crf', {
      subjectRecordId: s.patientA.subjectRecordId,
      crfId: Object.values(s.crfIds)[0],
      values: {},
    });
    expect(res.status).toBe(404);
  });
});
