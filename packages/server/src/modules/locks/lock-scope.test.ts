import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRecords, subjectRecords } from '../../db/schema/index.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/** What a lock reaches beyond its own target: sub-departments, site moves, a follow-up plan's scheduling. */

let t: TestApp;
let s: TwoSiteStudy;

const lock = (body: object) =>
  t.call(s.admin, 'PUT', '/api/business/lock', { studyId: s.studyId, reason: '核查完成', ...body });
const saveVitals = (subjectRecordId: number) =>
  t.call(s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: s.crfIds['生命体征'],
    version: 0,
    values: { sbp: '130', dbp: '80' },
  });

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
});
afterAll(() => t.close());

describe('what a lock reaches', () => {
  it('a site lock covers the departments under the site, as a member’s site does', async () => {
    const dept = await t.call(s.admin, 'POST', '/api/system/dept', {
      deptName: '甲中心骨科',
      parentId: s.siteA,
      orderNum: 1,
    });
    expect(dept.status, JSON.stringify(dept.body)).toBe(200);
    const patient = await t.call(s.admin, 'POST', '/api/business/subject', {
      studyId: s.studyId,
      subjectName: '骨科患者',
      gender: 1,
      birth: '1960-05-01',
      diseaseCode: 'LSS',
      deptId: dept.body.data.deptId,
    });
    expect(patient.status, JSON.stringify(patient.body)).toBe(200);
    expect((await lock({ scope: 'site', targetId: s.siteA, locked: true })).status).toBe(200);
    const refused = await saveVitals(patient.body.data.subjectRecordId);
    expect(refused.status).toBe(423);
    expect(refused.body.msg).toBe('该中心已锁定（系统管理员 2026-11-22），如需修改请先解锁');
    // The other site is open.
    expect((await saveVitals(s.patientB.subjectRecordId)).status).toBe(200);
    // The scoped nurse of the site sees the lock that covers her.
    const seen = (await t.call(s.nurseA.token, 'GET', `/api/business/lock?studyId=${s.studyId}`)).body.data;
    expect(seen).toEqual([expect.objectContaining({ scope: 'site', targetName: '甲中心' })]);
    expect((await lock({ scope: 'site', targetId: s.siteA, locked: false })).status).toBe(200);
    expect((await saveVitals(patient.body.data.subjectRecordId)).status).toBe(200);
  });

  it('转移中心: a locked patient stays where they are, and no patient moves into a locked site', async () => {
    const [casebook] = await t.db
      .select({ subjectId: subjectRecords.subjectId })
      .from(subjectRecords)
      .where(eq(subjectRecords.id, s.patientA.subjectRecordId));
    const move = (deptId: number) =>
      t.call(s.admin, 'PUT', '/api/business/subject/site', {
        subjectId: casebook!.subjectId,
        deptId,
        reason: '患者转院',
      });
    expect((await lock({ scope: 'subject', targetId: s.patientA.subjectRecordId, locked: true })).status).toBe(200);
    const locked = await move(s.siteB);
    expect(locked.status).toBe(423);
    expect(locked.body.msg).toContain('该病例已锁定');
    expect((await lock({ scope: 'subject', targetId: s.patientA.subjectRecordId, locked: false })).status).toBe(200);
    expect((await lock({ scope: 'site', targetId: s.siteB, locked: true })).status).toBe(200);
    const into = await move(s.siteB);
    expect(into.status).toBe(423);
    expect(into.body.msg).toContain('该中心已锁定');
    expect((await lock({ scope: 'site', targetId: s.siteB, locked: false })).status).toBe(200);
  });

  it('a new follow-up plan schedules the open patients and leaves a locked patient’s visits as they are', async () => {
    expect((await lock({ scope: 'subject', targetId: s.patientA.subjectRecordId, locked: true })).status).toBe(200);
    const plan = await t.call(s.admin, 'POST', '/api/business/follow', {
      studyId: s.studyId,
      planName: '术后随访计划',
      visits: [{ visitName: '术后1月', offset: 1, unit: 'month', crfIds: [s.crfIds['术后随访']] }],
    });
    expect(plan.status, JSON.stringify(plan.body)).toBe(200);
    const visitsOf = async (subjectRecordId: number) =>
      t.db.select().from(followRecords).where(eq(followRecords.subjectRecordId, subjectRecordId));
    expect(await visitsOf(s.patientA.subjectRecordId)).toEqual([]);
    expect(await visitsOf(s.patientB.subjectRecordId)).toHaveLength(1);
    const refused = await t.call(s.admin, 'POST', '/api/business/subject/follow', {
      subjectRecordId: s.patientA.subjectRecordId,
    });
    expect(refused.status).toBe(423);
    expect((await lock({ scope: 'subject', targetId: s.patientA.subjectRecordId, locked: false })).status).toBe(200);
    const scheduled = await t.call(s.admin, 'POST', '/api/business/subject/follow', {
      subjectRecordId: s.patientA.subjectRecordId,
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    expect(await visitsOf(s.patientA.subjectRecordId)).toHaveLength(1);
  });
});
