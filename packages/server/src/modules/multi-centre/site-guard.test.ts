import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crfDataRecords } from '../../db/schema/index.js';
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
    const save = (token: string) =>
      t.call(token, 'PUT', '/api/v3/business/crf', {
        subjectRecordId: s.patientA.subjectRecordId,
        crfId: s.crfIds['生命体征'],
        version: 0,
        values: { sbp: '130', dbp: '80', hr: '70' },
      });
    const res = await save(s.nurseB.token);
    expect(res.status).toBe(404);
    expect(res.body.msg).toBe('患者不存在');
    const records = () =>
      t.db.select().from(crfDataRecords).where(eq(crfDataRecords.subjectRecordId, s.patientA.subjectRecordId));
    expect(await records()).toEqual([]);
    // The same save by her site-A colleague is written: the refusal is the site's, not the request's.
    expect((await save(s.nurseA.token)).status).toBe(200);
    expect(await records()).toHaveLength(1);
  });
});

describe('a member’s sites', () => {
  it('SUBJ-06: a member given two sites sees both sites’ patients and is told where new ones may go', async () => {
    const list = await t.call(s.admin, 'GET', `/api/business/study_personnel/list?studyId=${s.studyId}&pageSize=50`);
    const nurseA = list.body.data.list.find((m: { userId: number }) => m.userId === s.nurseA.userId);
    const put = await t.call(s.admin, 'PUT', '/api/business/study_personnel', {
      id: nurseA.id,
      studyRoleId: nurseA.studyRoleId,
      siteIds: [s.siteA, s.siteB],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const after = await t.call(s.admin, 'GET', `/api/business/study_personnel/list?studyId=${s.studyId}&pageSize=50`);
    const row = after.body.data.list.find((m: { userId: number }) => m.userId === s.nurseA.userId);
    expect(row.siteIds).toEqual([s.siteA, s.siteB]);
    expect(row.siteNames).toEqual(['甲中心', '乙中心']);
    const other = await t.call(
      s.nurseA.token,
      'GET',
      `/api/v3/business/crf/${s.patientB.subjectRecordId}?crfId=${Object.values(s.crfIds)[0]}`,
    );
    expect(other.status).toBe(200);
    const study = await t.call(s.nurseA.token, 'GET', `/api/business/study/${s.studyId}`);
    expect(study.body.data.myRole.sites).toEqual([
      { deptId: s.siteA, deptName: '甲中心' },
      { deptId: s.siteB, deptName: '乙中心' },
    ]);
    const unknown = await t.call(s.admin, 'PUT', '/api/business/study_personnel', {
      id: nurseA.id,
      studyRoleId: nurseA.studyRoleId,
      siteIds: [999999],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toBe('中心不存在');
    // Back to one site: the other site's patient is out of reach again.
    await t.call(s.admin, 'PUT', '/api/business/study_personnel', {
      id: nurseA.id,
      studyRoleId: nurseA.studyRoleId,
      siteIds: [s.siteA],
    });
    const again = await t.call(
      s.nurseA.token,
      'GET',
      `/api/v3/business/crf/${s.patientB.subjectRecordId}?crfId=${Object.values(s.crfIds)[0]}`,
    );
    expect(again.status).toBe(404);
  });
});
