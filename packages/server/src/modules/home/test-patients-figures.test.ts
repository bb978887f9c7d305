import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLLOW_STATES } from '@ecrf/core';
import { doubts, followRecords, studies, subjectRecords, subjects, users } from '../../db/schema/index.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { foldStudyFigures, recountStudyFigures } from './study-figures.js';

interface Home {
  subjects: { total: number; active: number; thisMonth: number };
  forms: { incomplete: number; submitted: number; doubt: number };
  doubts: { open: number; replied: number; closed: number };
  enrolment: { month: string; count: number }[];
  formsByCrf: { crfId: number; incomplete: number; submitted: number }[];
  followCompliance: { visitName: string; onTime: number; pending: number }[];
  queriesWeekly: { week: string; opened: number; closed: number }[];
}

/**
 * The study home of a production study leaves out its test patients (subjects.test: entered against drafts) and
 * all that hangs on them — casebook, forms, queries, visits, enrolment — for an all-sites caller (kept counts less
 * the test patients' part) and a site-scoped caller (counted live) alike; a study in 测试 counts every patient.
 */
describe('home figures leave out the test patients of a production study', () => {
  let t: TestApp;
  let s: TwoSiteStudy;
  let vitals: number;
  let normal: number;
  let trial: number;

  const home = async (token: string) => {
    const res = await t.call(token, 'GET', `/api/business/index?studyId=${s.studyId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Home;
  };
  const enrol = async (subjectName: string, extra: object = {}) => {
    const res = await t.call(s.admin, 'POST', '/api/business/subject', {
      studyId: s.studyId,
      subjectName,
      gender: 1,
      birth: '1960-05-01',
      diseaseCode: 'LSS',
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const subjectRecordId = res.body.data.subjectRecordId as number;
    // At site 甲, where nurse A sees it.
    const [row] = await t.db.select().from(subjectRecords).where(eq(subjectRecords.id, subjectRecordId));
    await t.db.update(subjects).set({ deptId: s.siteA }).where(eq(subjects.id, row!.subjectId));
    return { subjectRecordId, subjectId: row!.subjectId };
  };
  /** A vitals record saved (未完成), an open query on it and a done visit: one of each figure the patient makes. */
  const fill = async (patient: { subjectRecordId: number; subjectId: number }, visitName: string) => {
    const saved = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: patient.subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { hr: 70, sbp: 120 },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const [admin] = await t.db.select().from(users).where(eq(users.userName, '13800000000'));
    await t.db.insert(doubts).values({
      studyId: s.studyId,
      subjectRecordId: patient.subjectRecordId,
      crfDataRecordId: saved.body.data.crfDataRecordId as number,
      crfId: vitals,
      itemName: 'hr',
      doubtDescription: '核实',
      optionType: 0,
      createdBy: admin!.userId,
      userName: admin!.name,
      createdAt: t.clock(),
    });
    await t.db.insert(followRecords).values({
      studyId: s.studyId,
      subjectId: patient.subjectId,
      subjectRecordId: patient.subjectRecordId,
      visitName,
      occurrence: 1,
      plannedDate: '2026-10-01',
      state: FOLLOW_STATES.DONE,
      custom: false,
    });
  };
  const vitalsOf = (h: Home) => h.formsByCrf.find((c) => c.crfId === vitals)!;
  const visit = (h: Home, name: string) => h.followCompliance.find((v) => v.visitName === name);
  const thisWeek = (h: Home) => h.queriesWeekly.at(-1)!.opened;

  let before: { admin: Home; nurseA: Home };

  beforeAll(async () => {
    t = await createTestApp();
    s = await openTwoSiteStudy(t);
    vitals = s.crfIds['生命体征']!;
    const [study] = await t.db.select().from(studies).where(eq(studies.studyId, s.studyId));
    expect(study!.mode).toBe('production');
    before = { admin: await home(s.admin), nurseA: await home(s.nurseA.token) };
    const n = await enrol('正式患者');
    normal = n.subjectRecordId;
    await fill(n, '正式随访');
    const tp = await enrol('测试患者', { test: true });
    trial = tp.subjectRecordId;
    await fill(tp, '测试随访');
  });
  afterAll(() => t.close());

  it('the test patient is a test patient and stays in the patient list', async () => {
    const list = await t.call(s.admin, 'POST', '/api/v3/business/subjectRecord/list', {
      studyId: s.studyId,
      pageNum: 1,
      pageSize: 50,
    });
    const rows = list.body.data.list as Array<{ id: number; test: boolean }>;
    expect(rows.find((r) => r.id === trial)).toMatchObject({ test: true });
    expect(rows.find((r) => r.id === normal)).toMatchObject({ test: false });
  });

  for (const who of ['admin', 'nurseA'] as const) {
    it(`${who === 'admin' ? 'an all-sites caller (kept counts)' : 'a site-scoped caller (counted live)'}: the normal patient counts, the test patient nowhere`, async () => {
      const token = who === 'admin' ? s.admin : s.nurseA.token;
      const was = before[who];
      const now = await home(token);
      expect(now.subjects.total).toBe(was.subjects.total + 1);
      expect(now.subjects.active).toBe(was.subjects.active + 1);
      expect(now.subjects.thisMonth).toBe(was.subjects.thisMonth + 1);
      expect(vitalsOf(now).incomplete).toBe(vitalsOf(was).incomplete + 1);
      expect(now.forms.incomplete).toBe(was.forms.incomplete + 1);
      expect(now.forms.doubt).toBe(was.forms.doubt + 1);
      expect(now.doubts.open).toBe(was.doubts.open + 1);
      expect(thisWeek(now)).toBe(thisWeek(was) + 1);
      expect(visit(now, '正式随访')).toMatchObject({ onTime: 1 });
      expect(visit(now, '测试随访')).toBeUndefined();
    });
  }

  it('folded or counted again from the rows, the figures still leave the test patient out', async () => {
    const kept = await home(s.admin);
    await foldStudyFigures(t.db);
    expect(await home(s.admin)).toEqual(kept);
    await recountStudyFigures(t.db, s.studyId);
    expect(await home(s.admin)).toEqual(kept);
  });

  it('a study in 测试 counts every patient, the test patient too', async () => {
    const tokens = [s.admin, s.nurseA.token];
    const live = [];
    for (const token of tokens) live.push(await home(token));
    await t.db.update(studies).set({ mode: 'test' }).where(eq(studies.studyId, s.studyId));
    try {
      for (const [i, token] of tokens.entries()) {
        const all = await home(token);
        const was = live[i]!;
        expect(all.subjects.total).toBe(was.subjects.total + 1);
        expect(vitalsOf(all).incomplete).toBe(vitalsOf(was).incomplete + 1);
        expect(all.doubts.open).toBe(was.doubts.open + 1);
        expect(all.forms.doubt).toBe(was.forms.doubt + 1);
        expect(visit(all, '测试随访')).toMatchObject({ onTime: 1 });
      }
    } finally {
      await t.db.update(studies).set({ mode: 'production' }).where(eq(studies.studyId, s.studyId));
    }
  });
});
