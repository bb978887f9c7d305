import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followPlanVisits, followRecords } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

// Test patients of a production study are scheduled from the follow-up plan's draft (issue 36): a visit the draft
// adds has a draft row their visits point to, the live plan and real patients stay as they are until publishing,
// publishing adopts the row (the test patient's visit stays), and discarding puts test patients back on the live plan.

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;

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

async function enrolOperated(subjectName: string, test: boolean) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
    subjectName,
    test,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { subjectRecordId } = res.body.data as { subjectRecordId: number };
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: surgery(),
    version: 0,
    values: { op_at: '2026-09-01 09:00:00' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  await t.ctx.events.drain();
  return { subjectRecordId };
}

/** A patient's pending (not deleted) visits of the plan: name → planned date and plan visit. */
async function scheduleOf(planId: number, subjectRecordId: number) {
  const rows = await t.db
    .select()
    .from(followRecords)
    .where(and(eq(followRecords.planId, planId), eq(followRecords.subjectRecordId, subjectRecordId)));
  return Object.fromEntries(
    rows.filter((r) => r.mark !== 'deleted').map((r) => [r.visitName, { date: r.plannedDate, visit: r.planVisitId }]),
  );
}

async function newPlan(planName: string) {
  const created = await t.call(admin, 'POST', '/api/business/follow', {
    studyId,
    planName,
    visits: [visit('术后1月', 1), visit('术后3月', 3)],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const planId = created.body.data.id as number;
  const plan = await t.call(admin, 'GET', `/api/business/follow/${planId}`);
  const ids = Object.fromEntries(
    plan.body.data.visits.map((v: { id: number; visitName: string }) => [v.visitName, v.id]),
  );
  return { planId, ids: ids as Record<string, number> };
}

/** The draft: 术后3月 a month later, 术后12月 new. */
const saveDraft = (planId: number, ids: Record<string, number>) =>
  t.call(admin, 'PUT', '/api/business/follow/draft', {
    studyId,
    planId,
    visits: [visit('术后1月', 1, ids['术后1月']), visit('术后3月', 4, ids['术后3月']), visit('术后12月', 12)],
  });

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
});
afterAll(() => t.close());

describe('test patients on a follow-up plan draft', () => {
  it('saving a draft schedules test patients by it; the live plan and real patients stay; publishing keeps the test visits', async () => {
    const { planId, ids } = await newPlan('草稿排期计划');
    const real = await enrolOperated('正式患者', false);
    const trial = await enrolOperated('测试患者', true);
    expect(await scheduleOf(planId, trial.subjectRecordId)).toEqual(await scheduleOf(planId, real.subjectRecordId));

    const saved = await saveDraft(planId, ids);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    const trialVisits = await scheduleOf(planId, trial.subjectRecordId);
    expect(trialVisits['术后3月']).toEqual({ date: '2027-01-01', visit: ids['术后3月'] });
    const added = trialVisits['术后12月']!;
    expect(added.date).toBe('2027-09-01');
    const [draftRow] = await t.db.select().from(followPlanVisits).where(eq(followPlanVisits.id, added.visit!));
    expect(draftRow).toMatchObject({ planId, draft: true, visitName: '术后12月', deletedAt: null });

    // Real patients and the live plan do not see the draft.
    expect(await scheduleOf(planId, real.subjectRecordId)).toEqual({
      术后1月: { date: '2026-10-01', visit: ids['术后1月'] },
      术后3月: { date: '2026-12-01', visit: ids['术后3月'] },
    });
    const live = await t.call(admin, 'GET', `/api/business/follow/${planId}`);
    expect(live.body.data.visits.map((v: { visitName: string }) => v.visitName)).toEqual(['术后1月', '术后3月']);
    // The draft as the API shows it: the added visit has no id until published.
    const draft = await t.call(admin, 'GET', `/api/business/follow/draft?studyId=${studyId}&planId=${planId}`);
    expect(draft.body.data.visits.map((v: { id: number | null }) => v.id)).toEqual([
      ids['术后1月'],
      ids['术后3月'],
      null,
    ]);

    // Saved again unchanged: the test patient's added visit stays on the same row.
    await saveDraft(planId, ids);
    expect((await scheduleOf(planId, trial.subjectRecordId))['术后12月']).toEqual(added);

    // The impact names the visit as added for the real patient only; the test patient is already on the draft.
    const impact = await t.call(admin, 'GET', `/api/business/follow/draft/impact?studyId=${studyId}&planId=${planId}`);
    expect(impact.status, JSON.stringify(impact.body)).toBe(200);
    expect(impact.body.data.plan.added).toEqual([{ name: '术后12月' }]);
    const adds = impact.body.data.move.filter((m: { kind: string }) => m.kind === 'add');
    expect(adds.map((m: { subjectRecordId: number }) => m.subjectRecordId)).toEqual([real.subjectRecordId]);

    const published = await t.call(admin, 'POST', '/api/business/follow/draft/publish', {
      studyId,
      planId,
      name: '方案修订 V2：增加术后12月',
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const [adopted] = await t.db.select().from(followPlanVisits).where(eq(followPlanVisits.id, added.visit!));
    expect(adopted).toMatchObject({ draft: false, deletedAt: null, sort: 2 });
    expect((await scheduleOf(planId, trial.subjectRecordId))['术后12月']).toEqual(added);
    expect(await scheduleOf(planId, real.subjectRecordId)).toEqual(await scheduleOf(planId, trial.subjectRecordId));
    const after = await t.call(admin, 'GET', `/api/business/follow/${planId}`);
    expect(after.body.data.visits.map((v: { id: number }) => v.id)).toEqual([
      ids['术后1月'],
      ids['术后3月'],
      added.visit,
    ]);
  });

  it('discarding the draft puts test patients back on the live plan and retires its rows', async () => {
    const { planId, ids } = await newPlan('放弃草稿计划');
    const trial = await enrolOperated('测试患者二', true);
    expect((await saveDraft(planId, ids)).status).toBe(200);
    const drafted = await scheduleOf(planId, trial.subjectRecordId);
    expect(Object.keys(drafted).sort()).toEqual(['术后12月', '术后1月', '术后3月']);

    const discarded = await t.call(admin, 'DELETE', `/api/business/follow/draft?studyId=${studyId}&planId=${planId}`);
    expect(discarded.status, JSON.stringify(discarded.body)).toBe(200);
    expect(await scheduleOf(planId, trial.subjectRecordId)).toEqual({
      术后1月: { date: '2026-10-01', visit: ids['术后1月'] },
      术后3月: { date: '2026-12-01', visit: ids['术后3月'] },
    });
    const [row] = await t.db
      .select()
      .from(followPlanVisits)
      .where(eq(followPlanVisits.id, drafted['术后12月']!.visit!));
    expect(row!.deletedAt).not.toBeNull();
  });

  it('a test patient enrolled while a draft is open is scheduled by the draft', async () => {
    const { planId, ids } = await newPlan('新测试患者计划');
    expect((await saveDraft(planId, ids)).status).toBe(200);
    const trial = await enrolOperated('测试患者三', true);
    const real = await enrolOperated('正式患者三', false);
    expect(Object.keys(await scheduleOf(planId, trial.subjectRecordId)).sort()).toEqual([
      '术后12月',
      '术后1月',
      '术后3月',
    ]);
    expect(Object.keys(await scheduleOf(planId, real.subjectRecordId)).sort()).toEqual(['术后1月', '术后3月']);
  });
});
