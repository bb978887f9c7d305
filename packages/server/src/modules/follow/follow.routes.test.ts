import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLLOW_STATES } from '@ecrf/core';
import { auditEvents, followRecords } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { followStates } from './follow-states.task.js';

const DAY = 86_400_000;

let t: TestApp;
let admin: string;
let adminId: number;
let studyId: number;
let crfIds: Record<string, number>;
let planId: number;
let subjectRecordId: number;
let subjectId: number;
let surgeryRecordId: number;

const surgery = () => crfIds['手术记录']!;
const followUpForm = () => crfIds['术后随访']!;

async function visits() {
  const res = await t.call(admin, 'GET', `/api/business/subject/follows?subjectRecordId=${subjectRecordId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as {
    followRecordId: number;
    visitName: string;
    plannedDate: string;
    windowStart: string;
    windowEnd: string;
    state: number;
    stateName: string;
    markReason: string | null;
    crfs: { followRecordCrfId: number; crfId: number; crfDataRecordId: number | null; submitted: boolean }[];
  }[];
}

/** Moves the clock by whole days; sessions do not live that long, so the administrator signs in again. */
async function advanceDays(days: number) {
  t.clock.advance(days * DAY);
  admin = (await t.login()).token;
}

const byName = async (name: string) => (await visits()).find((v) => v.visitName === name)!;

async function auditOf(action: string) {
  return t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, action)));
}

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  adminId = (await t.login()).user.userId;
  // The study's follow trigger: the day of surgery (手术记录 · 手术开始时间).
  const trigger = await t.call(admin, 'PUT', '/api/v1/business/study/follow_trigger', {
    studyId,
    enabled: true,
    crfId: surgery(),
    itemName: 'op_at',
    offsetDays: 0,
  });
  expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
});
afterAll(() => t.close());

describe('follow-up plans', () => {
  it('FOLLOW-09: GET /api/business/follow/crfs?studyId lists the forms a visit can use', async () => {
    const res = await t.call(admin, 'GET', `/api/business/follow/crfs?studyId=${studyId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { title: string }) => c.title)).toContain('术后随访');
  });

  it('FOLLOW-11: POST /api/business/follow creates a plan with ordered visits, audited; bad input is refused', async () => {
    const visit = (visitName: string, offset: number) => ({
      visitName,
      offset,
      unit: 'month',
      windowBefore: 7,
      windowAfter: 14,
      responsibleUserId: adminId,
      crfIds: [followUpForm()],
    });
    const refused = await t.call(admin, 'POST', '/api/business/follow', {
      studyId,
      planName: '术后随访计划',
      visits: [{ ...visit('术后1月', 1), crfIds: [] }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toBe('请选择随访表单');
    const res = await t.call(admin, 'POST', '/api/business/follow', {
      studyId,
      planName: '术后随访计划',
      visits: [visit('术后1月', 1), visit('术后3月', 3), visit('术后6月', 6)],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    planId = res.body.data.id;
    expect(await auditOf('follow.plan.create')).toHaveLength(1);
  });

  it('FOLLOW-10: GET /api/business/follow/{id} answers the plan with its visits, forms and responsible person', async () => {
    const res = await t.call(admin, 'GET', `/api/business/follow/${planId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.visits.map((v: { visitName: string }) => v.visitName)).toEqual([
      '术后1月',
      '术后3月',
      '术后6月',
    ]);
    expect(res.body.data.visits[0].crfs[0].title).toBe('术后随访');
    expect(res.body.data.visits[0].responsibleName).toBeTruthy();
  });

  it('FOLLOW-08: GET /api/business/follows is paged (platform §9)', async () => {
    const res = await t.call(admin, 'GET', `/api/business/follows?studyId=${studyId}&pageNum=1&pageSize=10`);
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(1);
    expect(res.body.data.list[0]).toMatchObject({ planName: '术后随访计划', visitCount: 3 });
  });
});

describe('each patient schedule', () => {
  it('FOLLOW-12: enrolment waits for the trigger date; saving the surgery date schedules the visits (month ends clamp)', async () => {
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '随访患者',
      gender: 1,
      diseaseCode: 'LSS',
    });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
    subjectRecordId = enrolled.body.data.subjectRecordId;
    await t.ctx.events.drain();
    expect(await visits()).toEqual([]);
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: surgery(),
      version: 0,
      values: { op_at: '2026-10-31 09:30:00' },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    surgeryRecordId = saved.body.data.crfDataRecordId;
    await t.ctx.events.drain();
    const list = await visits();
    expect(list.map((v) => [v.visitName, v.plannedDate, v.stateName])).toEqual([
      ['术后1月', '2026-11-30', '未到期'],
      ['术后3月', '2027-01-31', '未到期'],
      ['术后6月', '2027-04-30', '未到期'],
    ]);
    expect(list[0]).toMatchObject({ windowStart: '2026-11-23', windowEnd: '2026-12-14' });
    const [row] = await t.db.select().from(followRecords).where(eq(followRecords.subjectRecordId, subjectRecordId));
    subjectId = row!.subjectId;
    expect(await auditOf('follow.schedule')).toHaveLength(3);
  });

  it('FOLLOW-12: a corrected surgery date reschedules pending visits, audited with the old and new dates', async () => {
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: surgery(),
      crfDataRecordId: surgeryRecordId,
      version: 1,
      values: { op_at: '2026-10-30 09:30:00' },
      reason: '录入错误',
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    await t.ctx.events.drain();
    expect((await visits()).map((v) => v.plannedDate)).toEqual(['2026-11-30', '2027-01-30', '2027-04-30']);
    const moved = await auditOf('follow.reschedule');
    expect(
      moved.map((m) => [
        m.itemName,
        (m.oldValue as { plannedDate: string }).plannedDate,
        (m.newValue as { plannedDate: string }).plannedDate,
      ]),
    ).toEqual([['术后3月', '2027-01-31', '2027-01-30']]);
    expect(moved[0]!.userName).toBe('系统');
  });

  it('FOLLOW-12: POST /api/business/subject/follow regenerates on demand and is idempotent', async () => {
    const res = await t.call(admin, 'POST', '/api/business/subject/follow', { subjectRecordId });
    expect(res.status).toBe(200);
    expect(res.body.data.changed).toBe(false);
    expect(await visits()).toHaveLength(3);
  });

  it('FOLLOW-14: the visit forms are read by visit, by visit and form, and by visit form id', async () => {
    const first = await byName('术后1月');
    const forms = await t.call(
      admin,
      'GET',
      `/api/business/subject/follow/crfs?followRecordId=${first.followRecordId}`,
    );
    expect(forms.status).toBe(200);
    expect(forms.body.data).toEqual([
      expect.objectContaining({ crfId: followUpForm(), title: '术后随访', crfDataRecordId: null, subjectRecordId }),
    ]);
    const one = await t.call(
      admin,
      'GET',
      `/api/business/subject/follow/crf?followRecordId=${first.followRecordId}&crfId=${followUpForm()}`,
    );
    expect(one.status).toBe(200);
    const v2 = await t.call(
      admin,
      'GET',
      `/api/v2/business/subject/follow/crf?followRecordCrfId=${one.body.data.followRecordCrfId}`,
    );
    expect(v2.body.data).toEqual(one.body.data);
    // 2026-11-22 in Shanghai: the window opens on 11-23.
    expect(v2.body.data).toMatchObject({ visitName: '术后1月', stateName: '未到期' });
  });

  it('FOLLOW-14: a visit is 已完成 when its form, saved for it, is submitted (record.submitted)', async () => {
    await advanceDays(9); // 2026-12-01
    const first = await byName('术后1月');
    const followRecordCrfId = first.crfs[0]!.followRecordCrfId;
    const draft = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: followUpForm(),
      version: 0,
      values: { odi: 20 },
      followRecordCrfId,
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    await t.ctx.events.drain();
    expect((await byName('术后1月')).stateName).toBe('待随访');
    const submitted = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: followUpForm(),
      crfDataRecordId: draft.body.data.crfDataRecordId,
      version: draft.body.data.version,
      values: { odi: 20, fu_date: '2026-11-30' },
      submit: true,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    await t.ctx.events.drain();
    const done = await byName('术后1月');
    expect(done.stateName).toBe('已完成');
    expect(done.crfs[0]).toMatchObject({ crfDataRecordId: draft.body.data.crfDataRecordId, submitted: true });
    expect(await auditOf('follow.complete')).toHaveLength(1);
    // Another visit's form cannot take a record already tied to a visit.
    const other = (await byName('术后3月')).crfs[0]!.followRecordCrfId;
    const clash = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: followUpForm(),
      crfDataRecordId: draft.body.data.crfDataRecordId,
      version: submitted.body.data.version,
      values: { odi: 21, fu_date: '2026-11-30' },
      reason: '核对',
      followRecordCrfId: other,
    });
    expect(clash.status).toBe(409);
  });

  it('FOLLOW-08: states move as days pass: the hourly task and the list see 已超窗 in the study zone', async () => {
    await advanceDays(80); // 2027-02-19: 术后3月 (2027-01-30, window to 02-13) has passed
    const outcome = await followStates(t.db).run(t.clock());
    expect(outcome).toMatch(/^\d+ follow-up visit states changed$/);
    const [stored] = await t.db
      .select({ state: followRecords.state })
      .from(followRecords)
      .where(and(eq(followRecords.subjectRecordId, subjectRecordId), like(followRecords.visitName, '术后3月')));
    expect(stored!.state).toBe(FOLLOW_STATES.OVERDUE);
    const overdue = await t.call(
      admin,
      'GET',
      `/api/business/follow/records?studyId=${studyId}&state=2&pageNum=1&pageSize=10`,
    );
    expect(overdue.status).toBe(200);
    expect(overdue.body.data.list.map((v: { visitName: string }) => v.visitName)).toEqual(['术后3月']);
    const ranged = await t.call(
      admin,
      'GET',
      `/api/business/follow/records?studyId=${studyId}&startDate=2027-04-01&endDate=2027-05-01&responsibleUserId=${adminId}&subjectId=${subjectId}`,
    );
    expect(ranged.body.data.list.map((v: { visitName: string }) => v.visitName)).toEqual(['术后6月']);
    expect(ranged.body.data.total).toBe(1);
  });

  it('FOLLOW-05 FOLLOW-13: PUT /api/business/follow/record/status marks a visit 失访 with a reason, and restores it', async () => {
    const third = await byName('术后6月');
    const noReason = await t.call(admin, 'PUT', '/api/business/follow/record/status', {
      followRecordId: third.followRecordId,
      action: 'lost',
      reason: ' ',
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.msg).toBe('请填写原因');
    const lost = await t.call(admin, 'PUT', '/api/business/follow/record/status', {
      followRecordId: third.followRecordId,
      action: 'lost',
      reason: '电话无法联系',
    });
    expect(lost.status).toBe(200);
    expect(await byName('术后6月')).toMatchObject({ stateName: '失访', markReason: '电话无法联系' });
    const [row] = await auditOf('follow.lost');
    expect(row).toMatchObject({ itemName: '术后6月', reason: '电话无法联系', subjectRecordId });
    const restored = await t.call(admin, 'PUT', '/api/business/follow/record/status', {
      followRecordId: third.followRecordId,
      action: 'restore',
      reason: '已联系上',
    });
    expect(restored.status).toBe(200);
    expect((await byName('术后6月')).stateName).toBe('未到期');
  });

  it('FOLLOW-06 FOLLOW-15: PUT /api/business/subject/follow/record moves the planned date with its window; rescheduling keeps it', async () => {
    const second = await byName('术后3月');
    const res = await t.call(admin, 'PUT', '/api/business/subject/follow/record', {
      followRecordId: second.followRecordId,
      plannedDate: '2027-02-20',
      reason: '患者外地，延期复诊',
    });
    expect(res.status).toBe(200);
    const moved = await byName('术后3月');
    expect(moved).toMatchObject({
      plannedDate: '2027-02-20',
      windowStart: '2027-02-13',
      windowEnd: '2027-03-06',
      stateName: '待随访',
    });
    const [row] = await auditOf('follow.date');
    expect(row).toMatchObject({ oldValue: { plannedDate: '2027-01-30' }, newValue: { plannedDate: '2027-02-20' } });
    await t.call(admin, 'POST', '/api/business/subject/follow', { subjectRecordId });
    expect((await byName('术后3月')).plannedDate).toBe('2027-02-20');
  });

  it('FOLLOW-07 FOLLOW-15: DELETE /api/business/subject/follow/record needs a reason and leaves a restorable 已删除', async () => {
    const third = await byName('术后6月');
    const noReason = await t.call(
      admin,
      'DELETE',
      `/api/business/subject/follow/record?followRecordId=${third.followRecordId}`,
    );
    expect(noReason.status).toBe(400);
    const res = await t.call(
      admin,
      'DELETE',
      `/api/business/subject/follow/record?followRecordId=${third.followRecordId}&reason=${encodeURIComponent('重复访视')}`,
    );
    expect(res.status).toBe(200);
    expect((await byName('术后6月')).stateName).toBe('已删除');
    const list = await t.call(admin, 'GET', `/api/business/follow/records?studyId=${studyId}&subjectId=${subjectId}`);
    expect(list.body.data.list.map((v: { visitName: string }) => v.visitName)).not.toContain('术后6月');
    await t.call(admin, 'PUT', '/api/business/follow/record/status', {
      followRecordId: third.followRecordId,
      action: 'restore',
      reason: '误删',
    });
    expect((await byName('术后6月')).stateName).toBe('未到期');
  });

  it('FOLLOW-15: PUT /api/business/subject/follow/custom adds an unplanned visit with its forms', async () => {
    const res = await t.call(admin, 'PUT', '/api/business/subject/follow/custom', {
      subjectRecordId,
      visitName: '计划外复诊',
      plannedDate: '2027-02-25',
      windowBefore: 0,
      windowAfter: 3,
      crfIds: [followUpForm()],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const custom = await byName('计划外复诊');
    expect(custom).toMatchObject({ plannedDate: '2027-02-25', stateName: '未到期' });
    expect(custom.crfs).toHaveLength(1);
    expect(await auditOf('follow.custom')).toHaveLength(1);
  });
});

describe('plan changes', () => {
  it('FOLLOW-11: PUT /api/business/follow with reschedule moves pending visits only; done visits never move', async () => {
    const plan = (await t.call(admin, 'GET', `/api/business/follow/${planId}`)).body.data;
    const edited = plan.visits.map((v: Record<string, unknown>) => ({
      ...v,
      offset: v.visitName === '术后6月' ? 7 : v.offset === 1 ? 2 : v.offset,
    }));
    const res = await t.call(admin, 'PUT', '/api/business/follow', {
      id: planId,
      studyId,
      planName: plan.planName,
      visits: edited,
      reschedule: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const list = await visits();
    expect(list.find((v) => v.visitName === '术后1月')!.plannedDate).toBe('2026-11-30'); // done
    expect(list.find((v) => v.visitName === '术后3月')!.plannedDate).toBe('2027-02-20'); // set by a person
    expect(list.find((v) => v.visitName === '术后6月')!.plannedDate).toBe('2027-05-30');
    expect(await auditOf('follow.plan.update')).toHaveLength(1);
  });

  it('FOLLOW-11: DELETE /api/business/follow/{id} is refused while visits are pending, unless they go with it', async () => {
    const refused = await t.call(admin, 'DELETE', `/api/business/follow/${planId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.data.pendingRecords).toBe(2);
    const res = await t.call(admin, 'DELETE', `/api/business/follow/${planId}?removePending=true`);
    expect(res.status).toBe(200);
    const list = await visits();
    expect(list.find((v) => v.visitName === '术后1月')!.stateName).toBe('已完成');
    expect(list.find((v) => v.visitName === '术后6月')!.stateName).toBe('已删除');
    expect((await t.call(admin, 'GET', `/api/business/follow/${planId}`)).status).toBe(404);
  });
});

describe('follow-up permissions', () => {
  it('FOLLOW-01: staff without the follow buttons read but cannot change; outsiders read nothing', async () => {
    const reader = await addStudyMember(t, admin, studyId, '13300000001', { permissions: [] });
    const reads = [
      `/api/business/follows?studyId=${studyId}`,
      `/api/business/follow/records?studyId=${studyId}`,
      `/api/business/follow/crfs?studyId=${studyId}`,
      `/api/business/subject/follows?subjectRecordId=${subjectRecordId}`,
    ];
    for (const url of reads) expect((await t.call(reader, 'GET', url)).status, url).toBe(200);
    const first = await byName('术后1月');
    const writes: [string, string, unknown?][] = [
      [
        'POST',
        '/api/business/follow',
        { studyId, planName: 'x', visits: [{ visitName: 'a', offset: 1, unit: 'day', crfIds: [followUpForm()] }] },
      ],
      [
        'PUT',
        '/api/business/follow/record/status',
        { followRecordId: first.followRecordId, action: 'lost', reason: 'x' },
      ],
      [
        'PUT',
        '/api/business/subject/follow/record',
        { followRecordId: first.followRecordId, plannedDate: '2027-01-01', reason: 'x' },
      ],
      ['DELETE', `/api/business/subject/follow/record?followRecordId=${first.followRecordId}&reason=x`],
      [
        'PUT',
        '/api/business/subject/follow/custom',
        { subjectRecordId, visitName: 'x', plannedDate: '2027-01-01', crfIds: [followUpForm()] },
      ],
      ['POST', '/api/business/subject/follow', { subjectRecordId }],
    ];
    for (const [method, url, body] of writes) expect((await t.call(reader, method, url, body)).status, url).toBe(403);

    const otherStudy = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '另一项目',
      studyCode: 'OTHER-FU',
    });
    expect(otherStudy.status, JSON.stringify(otherStudy.body)).toBe(200);
    const outsider = await addStudyMember(
      t,
      admin,
      otherStudy.body.data.id ?? otherStudy.body.data.studyId,
      '13300000002',
      {
        permissions: ['btn:business.follow.plan', 'btn:business.follow.record'],
      },
    );
    for (const url of reads) expect((await t.call(outsider, 'GET', url)).status, url).toBe(403);
    expect(
      (
        await t.call(
          outsider,
          'GET',
          `/api/v2/business/subject/follow/crf?followRecordCrfId=${first.crfs[0]!.followRecordCrfId}`,
        )
      ).status,
    ).toBe(403);

    const planner = await addStudyMember(t, admin, studyId, '13300000003', {
      permissions: ['btn:business.follow.plan'],
    });
    const created = await t.call(planner, 'POST', '/api/business/follow', {
      studyId,
      planName: '年度随访',
      visits: [
        { visitName: '每年', offset: 12, unit: 'month', repeatEvery: 12, repeatUntil: 36, crfIds: [followUpForm()] },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect((await visits()).filter((v) => v.visitName.startsWith('每年')).map((v) => v.plannedDate)).toEqual([
      '2027-10-30',
      '2028-10-30',
      '2029-10-30',
    ]);
  });
});
