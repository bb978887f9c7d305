import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FollowDraftImpact } from '@ecrf/core';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

// The impact of a follow-up plan draft names patients: a plan holder scoped to one site sees only that site's
// patients in `move` and `stay` (docs/multi-centre.md); the counts are the study's (publishing is study-wide).

let t: TestApp;
let s: TwoSiteStudy;
let planId: number;

const surgery = () => s.crfIds['手术记录']!;
const followUpForm = () => s.crfIds['术后随访']!;

const visit = (visitName: string, offset: number, id?: number) => ({
  ...(id ? { id } : {}),
  visitName,
  offset,
  unit: 'month',
  windowBefore: 7,
  windowAfter: 7,
  crfIds: [followUpForm()],
});

/** Operated on 2026-09-01 (the study's follow trigger), and the 术后1月 visit's form submitted (it stays). */
async function operatedWithFirstVisitDone(subjectRecordId: number) {
  const saved = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: surgery(),
    version: 0,
    values: { op_at: '2026-09-01 09:00:00' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  await t.ctx.events.drain();
  const visits = await t.call(s.admin, 'GET', `/api/business/subject/follows?subjectRecordId=${subjectRecordId}`);
  const first = (visits.body.data as { visitName: string; crfs: { followRecordCrfId: number }[] }[]).find(
    (v) => v.visitName === '术后1月',
  )!;
  const filled = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: followUpForm(),
    version: 0,
    values: { odi: 20, fu_date: '2026-10-02' },
    followRecordCrfId: first.crfs[0]!.followRecordCrfId,
    submit: true,
  });
  expect(filled.status, JSON.stringify(filled.body)).toBe(200);
  await t.ctx.events.drain();
}

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  const trigger = await t.call(s.admin, 'PUT', '/api/v1/business/study/follow_trigger', {
    studyId: s.studyId,
    enabled: true,
    crfId: surgery(),
    itemName: 'op_at',
    offsetDays: 0,
  });
  expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
  const created = await t.call(s.admin, 'POST', '/api/business/follow', {
    studyId: s.studyId,
    planName: '术后随访计划',
    visits: [visit('术后1月', 1), visit('术后3月', 3), visit('术后6月', 6)],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  planId = created.body.data.id;
  const plan = await t.call(s.admin, 'GET', `/api/business/follow/${planId}`);
  const ids = Object.fromEntries(
    plan.body.data.visits.map((v: { id: number; visitName: string }) => [v.visitName, v.id]),
  ) as Record<string, number>;
  await operatedWithFirstVisitDone(s.patientA.subjectRecordId);
  await operatedWithFirstVisitDone(s.patientB.subjectRecordId);
  // 术后1月's window widened (done: it stays), 术后3月 moves a month later, 术后6月 is dropped, 术后12月 is new.
  const draft = await t.call(s.admin, 'PUT', '/api/business/follow/draft', {
    studyId: s.studyId,
    planId,
    visits: [
      { ...visit('术后1月', 1, ids['术后1月']), windowAfter: 30 },
      visit('术后3月', 4, ids['术后3月']),
      visit('术后12月', 12),
    ],
  });
  expect(draft.status, JSON.stringify(draft.body)).toBe(200);
});
afterAll(() => t.close());

async function impactFor(token: string) {
  const res = await t.call(token, 'GET', `/api/business/follow/draft/impact?studyId=${s.studyId}&planId=${planId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { impact: res.body.data as FollowDraftImpact, text: JSON.stringify(res.body) };
}

const codes = (rows: Array<{ identificationCode: string }>) => [...new Set(rows.map((r) => r.identificationCode))];

describe('the follow-up plan draft’s impact × sites', () => {
  it('a plan holder scoped to site B sees only site B’s patients in move and stay; the counts are the study’s', async () => {
    const { impact, text } = await impactFor(s.nurseB.token);
    expect(codes(impact.move)).toEqual([s.patientB.identificationCode]);
    expect(codes(impact.stay)).toEqual([s.patientB.identificationCode]);
    expect(impact.move.map((m) => [m.kind, m.visitName]).sort()).toEqual(
      [
        ['add', '术后12月'],
        ['move', '术后3月'],
        ['remove', '术后6月'],
      ].sort(),
    );
    expect(impact.stay.map((r) => [r.visitName, r.reason])).toEqual([['术后1月', 'done']]);
    expect(new Set([...impact.move, ...impact.stay].map((r) => r.subjectRecordId))).toEqual(
      new Set([s.patientB.subjectRecordId]),
    );
    expect(text).not.toContain(s.patientA.identificationCode);
    expect(text).not.toContain('甲中心');
    expect(impact.counts).toMatchObject({ patients: 2, affectedPatients: 2, move: 2, add: 2, remove: 2, stay: 2 });
  });

  it('site A’s scoped holder sees only site A’s patients', async () => {
    const { impact, text } = await impactFor(s.nurseA.token);
    expect(codes(impact.move)).toEqual([s.patientA.identificationCode]);
    expect(codes(impact.stay)).toEqual([s.patientA.identificationCode]);
    expect(text).not.toContain(s.patientB.identificationCode);
  });

  it('a holder of 查看全部中心数据 sees both sites’ patients', async () => {
    const { impact } = await impactFor(s.monitor.token);
    const both = [s.patientA.identificationCode, s.patientB.identificationCode].sort();
    expect(codes(impact.move).sort()).toEqual(both);
    expect(codes(impact.stay).sort()).toEqual(both);
    expect(impact.move).toHaveLength(6);
    expect(impact.stay).toHaveLength(2);
  });
});
