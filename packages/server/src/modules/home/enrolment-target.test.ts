import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, studies } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

describe('入组目标: a study setting drawn on the study home', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId } = await openDemoStudy(t));
  });
  afterAll(async () => {
    await t?.close();
  });

  const figures = async (token = admin) => {
    const res = await t.call(token, 'GET', `/api/business/index?studyId=${studyId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { enrolmentTarget: number | null; enrolmentTargetDate: string | null };
  };

  it('STUDY-09: no target until one is set; then the study and the home figures carry it, audited', async () => {
    expect(await figures()).toMatchObject({ enrolmentTarget: null, enrolmentTargetDate: null });
    const saved = await t.call(admin, 'PUT', '/api/business/study', {
      id: studyId,
      enrolmentTarget: 120,
      enrolmentTargetDate: '2027-06-30',
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data).toMatchObject({ enrolmentTarget: 120, enrolmentTargetDate: '2027-06-30' });
    expect((await t.call(admin, 'GET', `/api/business/study/${studyId}`)).body.data.enrolmentTarget).toBe(120);
    // Staff who may read the home see the target whatever their role.
    const clerk = await addStudyMember(t, admin, studyId, '13700000001', { permissions: [] });
    expect(await figures(clerk)).toMatchObject({ enrolmentTarget: 120, enrolmentTargetDate: '2027-06-30' });
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'study.config')));
    expect(rows.map((r) => [r.itemName, r.oldValue, r.newValue])).toEqual(
      expect.arrayContaining([
        ['enrolmentTarget', null, 120],
        ['enrolmentTargetDate', null, '2027-06-30'],
      ]),
    );
  });

  it('STUDY-09: a target must be a whole number from 1, a date a real date; clearing the target clears its date', async () => {
    for (const bad of [{ enrolmentTarget: 0 }, { enrolmentTarget: 1.5 }, { enrolmentTargetDate: '2027-13-01' }]) {
      const res = await t.call(admin, 'PUT', '/api/business/study', { id: studyId, ...bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    const cleared = await t.call(admin, 'PUT', '/api/business/study', { id: studyId, enrolmentTarget: null });
    expect(cleared.status).toBe(200);
    const [row] = await t.db.select().from(studies).where(eq(studies.studyId, studyId));
    expect([row!.enrolmentTarget, row!.enrolmentTargetDate]).toEqual([null, null]);
    expect(await figures()).toMatchObject({ enrolmentTarget: null, enrolmentTargetDate: null });
  });

  it('only a holder of 项目配置 or 编辑项目 changes it', async () => {
    const member = await addStudyMember(t, admin, studyId, '13700000002', { permissions: [] });
    const res = await t.call(member, 'PUT', '/api/business/study', { id: studyId, enrolmentTarget: 50 });
    expect(res.status).toBe(403);
  });
});
