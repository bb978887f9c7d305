import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FollowDraftImpact } from '@ecrf/core';
import { amendments, auditEvents, followPlans, followRecords, studies } from '../../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

// A production study's follow-up plan draft (issue 36): saved beside the live plan, its impact on existing
// patients' visits, and publishing it, which does exactly what the impact said.

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;
let planId: number;
let visitIds: Record<string, number>;
const patients: Record<string, { subjectRecordId: number; identificationCode: string }> = {};

const surgery = () => crfIds['手术记录']!;
const followUpForm = () => crfIds['术后随访']!;

const visit = (visitName: string, offset: number, id?: number) => ({
  ...(id ? { id } : {}),
  visitName,
  offset,
  unit: 'month',
  windowBefore: 7,
  windowAfter: 7,
  crfIds: [followUpForm()],
});

async function planRecords() {
  return t.db.select().from(followRecords).where(eq(followRecords.planId, planId));
}

async function visitsOf(name: string) {
  const res = await t.call(
    admin,
    'GET',
    `/api/business/subject/follows?subjectRecordId=${patients[name]!.subjectRecordId}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { followRecordId: number; visitName: string; crfs: { followRecordCrfId: number }[] }[];
}

async function auditOf(action: string) {
  return t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, action)));
}

/** A patient with a surgery date (the study's follow trigger) on 2026-09-01, so the plan schedules them. */
async function operatedPatient(name: string, operated = true) {
  patients[name] = await enrolDemoPatient(t, admin, studyId, { subjectName: name });
  if (!operated) return;
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: patients[name]!.subjectRecordId,
    crfId: surgery(),
    version: 0,
    values: { op_at: '2026-09-01 09:00:00' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  await t.ctx.events.drain();
}

/** Saves (and optionally submits) the follow-up form of a patient's 术后1月 visit. */
async function fillFirstVisit(name: string, submit: boolean) {
  const first = (await visitsOf(name)).find((v) => v.visitName === '术后1月')!;
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: patients[name]!.subjectRecordId,
    crfId: followUpForm(),
    version: 0,
    values: submit ? { odi: 20, fu_date: '2026-10-02' } : { odi: 20 },
    followRecordCrfId: first.crfs[0]!.followRecordCrfId,
    submit,
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  await t.ctx.events.drain();
}

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const trigger = await t.call(admin, 'PUT', '/api/v1/business/study/follow_trigger', {
    studyId,
    enabled: true,
    crfId: surgery(),
    itemName: 'op_at',
    offsetDays: 0,
  });
  expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
  const created = await t.call(admin, 'POST', '/api/business/follow', {
    studyId,
    planName: '术后随访计划',
    visits: [visit('术后1月', 1), visit('术后3月', 3), visit('术后6月', 6)],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  planId = created.body.data.id;
  const plan = await t.call(admin, 'GET', `/api/business/follow/${planId}`);
  visitIds = Object.fromEntries(
    plan.body.data.visits.map((v: { id: number; visitName: string }) => [v.visitName, v.id]),
  );
  // 2026-11-22 today: 术后1月 (2026-10-01) is past, 术后3月 (12-01) and 术后6月 (2027-03-01) ahead.
  await operatedPatient('完成患者');
  await fillFirstVisit('完成患者', true); // 术后1月 done
  await operatedPatient('录入患者');
  await fillFirstVisit('录入患者', false); // 术后1月 holds data, not submitted
  await operatedPatient('未手术患者', false); // no trigger date yet
});
afterAll(() => t.close());

/** The draft: 术后1月's window widened, 术后3月 a month later, 术后6月 dropped, 术后12月 new. */
const draftVisits = () => [
  { ...visit('术后1月', 1, visitIds['术后1月']), windowAfter: 30 },
  visit('术后3月', 4, visitIds['术后3月']),
  visit('术后12月', 12),
];

describe('follow-up plan drafts', () => {
  it('GET answers null while there is no draft; PUT saves one without touching the plan or any visit', async () => {
    const none = await t.call(admin, 'GET', `/api/business/follow/draft?studyId=${studyId}&planId=${planId}`);
    expect(none.status).toBe(200);
    expect(none.body.data).toBeNull();
    const before = await planRecords();
    const saved = await t.call(admin, 'PUT', '/api/business/follow/draft', { studyId, planId, visits: draftVisits() });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const read = await t.call(admin, 'GET', `/api/business/follow/draft?studyId=${studyId}&planId=${planId}`);
    expect(
      read.body.data.visits.map((v: { id: number | null; visitName: string; offset: number }) => [
        v.id,
        v.visitName,
        v.offset,
      ]),
    ).toEqual([
      [visitIds['术后1月'], '术后1月', 1],
      [visitIds['术后3月'], '术后3月', 4],
      [null, '术后12月', 12],
    ]);
    expect(read.body.data.visits[0].crfs[0].title).toBe('术后随访');
    expect(read.body.data.updatedByName).toBeTruthy();
    const plan = await t.call(admin, 'GET', `/api/business/follow/${planId}`);
    expect(plan.body.data.visits.map((v: { visitName: string }) => v.visitName)).toEqual([
      '术后1月',
      '术后3月',
      '术后6月',
    ]);
    expect(await planRecords()).toEqual(before);
    expect(await auditOf('follow.plan.draft')).toHaveLength(1);
  });

  it('a draft names only the plan’s own visits, and is refused for a study still in 测试', async () => {
    const foreign = await t.call(admin, 'PUT', '/api/business/follow/draft', {
      studyId,
      planId,
      visits: [visit('术后1月', 1, 999_999)],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.msg).toBe('访视不存在');
    await t.db.update(studies).set({ mode: 'test' }).where(eq(studies.studyId, studyId));
    const inTest = await t.call(admin, 'PUT', '/api/business/follow/draft', { studyId, planId, visits: draftVisits() });
    await t.db.update(studies).set({ mode: 'production' }).where(eq(studies.studyId, studyId));
    expect(inTest.status).toBe(400);
    expect(inTest.body.msg).toBe('项目尚未上线，请直接修改随访计划');
  });

  it('a member without 随访计划 editing reads the draft but cannot save, discard, see the impact or publish it', async () => {
    const reader = await addStudyMember(t, admin, studyId, '13300000071', { permissions: [] });
    const q = `studyId=${studyId}&planId=${planId}`;
    expect((await t.call(reader, 'GET', `/api/business/follow/draft?${q}`)).status).toBe(200);
    expect(
      (await t.call(reader, 'PUT', '/api/business/follow/draft', { studyId, planId, visits: draftVisits() })).status,
    ).toBe(403);
    expect((await t.call(reader, 'DELETE', `/api/business/follow/draft?${q}`)).status).toBe(403);
    expect((await t.call(reader, 'GET', `/api/business/follow/draft/impact?${q}`)).status).toBe(403);
    const publish = await t.call(reader, 'POST', '/api/business/follow/draft/publish', {
      studyId,
      planId,
      name: '修订',
    });
    expect(publish.status).toBe(403);
  });

  it('DELETE discards the draft and nothing else', async () => {
    const before = await planRecords();
    const res = await t.call(admin, 'DELETE', `/api/business/follow/draft?studyId=${studyId}&planId=${planId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [plan] = await t.db.select().from(followPlans).where(eq(followPlans.id, planId));
    expect(plan!.draft).toBeNull();
    expect(await planRecords()).toEqual(before);
    expect(await auditOf('follow.plan.draft_discard')).toHaveLength(1);
    const again = await t.call(admin, 'DELETE', `/api/business/follow/draft?studyId=${studyId}&planId=${planId}`);
    expect(again.status).toBe(404);
  });

  it('the impact predicts publishing exactly: done and data-holding visits stay, open ones move, new ones are added, dropped ones removed', async () => {
    await t.call(admin, 'PUT', '/api/business/follow/draft', { studyId, planId, visits: draftVisits() });
    const res = await t.call(admin, 'GET', `/api/business/follow/draft/impact?studyId=${studyId}&planId=${planId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const impact = res.body.data as FollowDraftImpact;
    const code = (name: string) => patients[name]!.identificationCode;
    expect(impact.counts).toEqual({
      patients: 3,
      affectedPatients: 2,
      unscheduledPatients: 1,
      lockedPatients: 0,
      move: 2,
      add: 2,
      remove: 2,
      stay: 2,
      unchanged: 0,
    });
    expect(impact.plan).toEqual({
      added: [{ name: '术后12月' }],
      removed: [{ id: visitIds['术后6月'], name: '术后6月' }],
      changed: [
        { id: visitIds['术后1月'], name: '术后1月' },
        { id: visitIds['术后3月'], name: '术后3月' },
      ],
    });
    const rows = impact.move.map((m) => [m.identificationCode, m.kind, m.visitName, m.fromDate, m.toDate]).sort();
    expect(rows).toEqual(
      [
        [code('完成患者'), 'add', '术后12月', null, '2027-09-01'],
        [code('完成患者'), 'move', '术后3月', '2026-12-01', '2027-01-01'],
        [code('完成患者'), 'remove', '术后6月', '2027-03-01', null],
        [code('录入患者'), 'add', '术后12月', null, '2027-09-01'],
        [code('录入患者'), 'move', '术后3月', '2026-12-01', '2027-01-01'],
        [code('录入患者'), 'remove', '术后6月', '2027-03-01', null],
      ].sort(),
    );
    expect(impact.stay.map((s) => [s.identificationCode, s.visitName, s.reason]).sort()).toEqual(
      [
        [code('完成患者'), '术后1月', 'done'],
        [code('录入患者'), '术后1月', 'data'],
      ].sort(),
    );
    expect(impact.move[0]).toMatchObject({ siteName: expect.any(String), test: false });

    const before = await planRecords();
    const published = await t.call(admin, 'POST', '/api/business/follow/draft/publish', {
      studyId,
      planId,
      name: '方案修订 v2：随访调整',
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const after = await planRecords();

    // What changed, read from the rows, is what the impact listed — no more, no less.
    const moved = after.flatMap((a) => {
      const b = before.find((x) => x.id === a.id);
      return b && b.plannedDate !== a.plannedDate ? [[a.id, b.plannedDate, a.plannedDate]] : [];
    });
    const removed = after.flatMap((a) => {
      const b = before.find((x) => x.id === a.id);
      return b && b.mark === null && a.mark === 'deleted' ? [a.id] : [];
    });
    const added = after.filter((a) => !before.some((b) => b.id === a.id));
    const of = (kind: string) => impact.move.filter((m) => m.kind === kind);
    expect(moved.sort()).toEqual(
      of('move')
        .map((m) => [m.followRecordId, m.fromDate, m.toDate])
        .sort(),
    );
    expect(removed.sort()).toEqual(
      of('remove')
        .map((m) => m.followRecordId)
        .sort(),
    );
    expect(added.map((a) => [a.subjectRecordId, a.visitName, a.plannedDate]).sort()).toEqual(
      of('add')
        .map((m) => [m.subjectRecordId, m.visitName, m.toDate])
        .sort(),
    );
    for (const s of impact.stay) {
      expect(after.find((a) => a.id === s.followRecordId)).toEqual(before.find((b) => b.id === s.followRecordId));
    }

    // The plan is the draft's, the draft is closed, the amendment keeps the counts, and it is all audited.
    const plan = await t.call(admin, 'GET', `/api/business/follow/${planId}`);
    expect(plan.body.data.visits.map((v: { visitName: string; offset: number }) => [v.visitName, v.offset])).toEqual([
      ['术后1月', 1],
      ['术后3月', 4],
      ['术后12月', 12],
    ]);
    const draft = await t.call(admin, 'GET', `/api/business/follow/draft?studyId=${studyId}&planId=${planId}`);
    expect(draft.body.data).toBeNull();
    const [amendment] = await t.db.select().from(amendments).where(eq(amendments.id, published.body.data.amendmentId));
    expect(amendment).toMatchObject({
      studyId,
      name: '方案修订 v2：随访调整',
      kind: 'follow',
      followPlanId: planId,
      report: { ...impact.counts, planVisits: { added: 1, removed: 1, changed: 2 } },
    });
    expect(await auditOf('follow.plan.publish')).toHaveLength(1);
    expect(await auditOf('follow.plan.update')).toHaveLength(1);
    expect(await auditOf('follow.reschedule')).toHaveLength(2);

    // Nothing is left to publish.
    const again = await t.call(admin, 'POST', '/api/business/follow/draft/publish', { studyId, planId, name: '再次' });
    expect(again.status).toBe(404);
  });

  it('publishing needs a name (修订名称)', async () => {
    const res = await t.call(admin, 'POST', '/api/business/follow/draft/publish', { studyId, planId, name: ' ' });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('请输入修订名称');
  });
});
