import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crfKey } from '@ecrf/core';
import { crfDataRecords, doubts, users } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { insertVisits } from '../../test/follow-visits.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

interface Dashboard {
  subjects: { total: number };
  forms: { incomplete: number; submitted: number };
  doubts: { open: number; closed: number };
  enrolmentCumulative: { month: string; total: number }[];
  enrolmentTarget: number | null;
  formsByCrf: { crfId: number; title: string; incomplete: number; submitted: number }[];
  queriesWeekly: { week: string; opened: number; closed: number }[];
  followCompliance: {
    visitName: string;
    onTime: number;
    late: number;
    overdue: number;
    lost: number;
    pending: number;
  }[];
}

describe('study dashboard figures (GET /api/business/index)', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let crfIds: Record<string, number>;
  let vitals: number;
  let labs: number;

  const home = async (token: string) => {
    const res = await t.call(token, 'GET', `/api/business/index?studyId=${studyId}`);
    return { status: res.status, data: res.body.data as Dashboard };
  };

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId, crfIds } = await openDemoStudy(t));
    vitals = crfIds['生命体征']!;
    labs = Object.values(crfIds).find((id) => id !== vitals)!;
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '仪表',
      gender: 1,
      birth: '1960-01-01',
      diseaseCode: 'LSS',
      mobile: '13912340000',
    });
    const subjectRecordId = enrolled.body.data.subjectRecordId as number;
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { hr: 70 },
    });
    const recordId = saved.body.data.crfDataRecordId as number;
    const [adminRow] = await t.db.select().from(users).where(eq(users.userName, '13800000000'));
    // Queries raised and closed in known weeks of the study's zone (Asia/Shanghai); the clock stands at
    // 2026-11-22T08:00Z, a Sunday, so the current week starts on Monday 2026-11-16.
    const query = (createdAt: string, closedAt: string | null) => ({
      studyId,
      subjectRecordId,
      crfDataRecordId: recordId,
      crfId: vitals,
      itemName: 'hr',
      doubtDescription: '核实',
      optionType: closedAt ? 1 : 0,
      createdBy: adminRow!.userId,
      userName: adminRow!.name,
      createdAt: new Date(createdAt),
      closedAt: closedAt ? new Date(closedAt) : null,
    });
    await t.db.insert(doubts).values([
      query('2026-11-16T01:00:00Z', null), // Monday 09:00: this week
      query('2026-11-15T17:00:00Z', '2026-11-17T02:00:00Z'), // Monday 01:00 local: this week, closed this week
      query('2026-11-15T15:00:00Z', '2026-11-16T03:00:00Z'), // Sunday 23:00 local: last week, closed this week
      query('2026-09-01T01:00:00Z', null), // before the 12 weeks shown
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('STUDY-09: cumulative enrolment, forms by state per CRF and queries opened/closed per week', async () => {
    const { status, data } = await home(admin);
    expect(status).toBe(200);
    expect(data.enrolmentTarget).toBeNull();
    expect(data.enrolmentCumulative.at(-1)!.total).toBe(data.subjects.total);
    const totals = data.enrolmentCumulative.map((e) => e.total);
    expect([...totals].sort((a, b) => a - b)).toEqual(totals);

    expect(data.formsByCrf.map((c) => c.crfId).sort()).toEqual(Object.values(crfIds).sort());
    const records = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.studyId, studyId));
    const live = records.filter((r) => r.deletedAt === null);
    const sum = (k: 'incomplete' | 'submitted') => data.formsByCrf.reduce((n, c) => n + c[k], 0);
    expect(sum('incomplete')).toBe(live.filter((r) => r.state === 1).length);
    expect(sum('submitted')).toBe(live.filter((r) => r.state === 2).length);
    expect(data.formsByCrf.find((c) => c.crfId === vitals)!.incomplete).toBeGreaterThan(0);

    expect(data.queriesWeekly).toHaveLength(12);
    expect(data.queriesWeekly.at(-1)).toEqual({ week: '2026-11-16', opened: 2, closed: 2 });
    expect(data.queriesWeekly.at(-2)).toEqual({ week: '2026-11-09', opened: 1, closed: 0 });
    expect(data.queriesWeekly[0]!.week).toBe('2026-08-31');
  });

  it('follow-up compliance per visit: on time, late, missed, lost and not yet judged; custom and deleted visits apart', async () => {
    await insertVisits(t, studyId, [
      ['术后1月', 3, 1],
      ['术后1月', 3, 2],
      ['术后1月', 4, 3],
      ['术后1月', 2, 4],
      ['术后1月', 5, 5],
      ['术后1月', 6, 6],
      ['术后3月', 1, 7],
      ['电话随访', 3, 8, true],
    ]);
    const { data } = await home(admin);
    expect(data.followCompliance).toEqual([
      { visitName: '术后1月', onTime: 2, late: 1, overdue: 1, lost: 1, pending: 0 },
      { visitName: '术后3月', onTime: 0, late: 0, overdue: 0, lost: 0, pending: 1 },
    ]);
  });

  it('form and query figures follow the per-CRF view rule', async () => {
    const onlyLabs = await addStudyMember(t, admin, studyId, '13900000201', { permissions: [crfKey(labs, 'view')] });
    const { status, data } = await home(onlyLabs);
    expect(status).toBe(200);
    expect(data.formsByCrf.map((c) => c.crfId)).toEqual([labs]);
    // Every query above is on 生命体征, which this member may not view.
    expect(data.queriesWeekly.every((w) => w.opened === 0 && w.closed === 0)).toBe(true);
    expect(data.doubts.open).toBe(0);
    const ownRecords = data.formsByCrf[0]!;
    expect(data.forms.incomplete).toBe(ownRecords.incomplete);
    expect(data.forms.submitted).toBe(ownRecords.submitted);
    // Patients are not per form: the same counts as the administrator's.
    expect(data.subjects.total).toBe((await home(admin)).data.subjects.total);
  });

  it('a user who is not staff of the study is refused', async () => {
    const created = await t.call(admin, 'POST', '/api/system/user', {
      userName: '13900000202',
      password: 'Passw0rd',
      name: '外人',
      deptId: 1,
      roleIds: [1],
    });
    const plainRole = await t.call(admin, 'POST', '/api/system/role', {
      roleName: '外人',
      roleKey: 'outsider',
      menuIds: [],
    });
    await t.call(admin, 'PUT', '/api/system/user', {
      userId: created.body.data.userId,
      userName: '13900000202',
      name: '外人',
      deptId: 1,
      roleIds: [plainRole.body.data.roleId],
    });
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, created.body.data.userId));
    const outsider = (await t.login('13900000202', 'Passw0rd')).token;
    expect((await home(outsider)).status).toBe(403);
  });
});
