import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../db/client.js';
import { studies } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { insertVisits } from '../../test/follow-visits.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { foldStudyFigures, recountStudyFigures } from './study-figures.js';

/**
 * The study home's figures are counts kept by triggers (migration 0033). Whatever happens to a study, through
 * the API or by SQL, in one statement or many, at once or side by side, the kept counts must equal the counts
 * taken again from the rows (`recount_study_figures`): that is what each step below checks.
 */
describe('study home figures kept as counts', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let vitals: number;
  let nextSubject = 0;

  const home = async () => {
    const res = await t.call(admin, 'GET', `/api/business/index?studyId=${studyId}`);
    expect(res.status).toBe(200);
    return res.body.data as Record<string, unknown>;
  };
  /** The patient list's total: from the kept count when unfiltered or filtered by state only. */
  const listTotal = async (filter: object = {}) => {
    const res = await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
      studyId,
      pageNum: 1,
      pageSize: 2,
      ...filter,
    });
    expect(res.status).toBe(200);
    return res.body.data.total as number;
  };
  const listTotals = async () => ({
    all: await listTotal(),
    active: await listTotal({ state: 0 }),
    withdrawn: await listTotal({ state: 2 }),
    deleted: await listTotal({ deleted: true }),
  });
  /** The home figures and list totals from the kept counts must equal those counted again from the rows. */
  const expectCountsKept = async () => {
    const kept = await home();
    const totals = await listTotals();
    await recountStudyFigures(t.db, studyId);
    expect(kept).toEqual(await home());
    expect(totals).toEqual(await listTotals());
    const subjects = kept.subjects as { total: number; active: number; withdrawn: number };
    expect(totals).toMatchObject({ all: subjects.total, active: subjects.active, withdrawn: subjects.withdrawn });
    return kept;
  };
  const enrol = async () => {
    const res = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: `计数${++nextSubject}`,
      gender: nextSubject % 2,
      diseaseCode: 'LSS',
    });
    expect(res.body.msg).toBe('添加成功');
    return res.body.data.subjectRecordId as number;
  };
  const save = async (subjectRecordId: number, submit = false, crfDataRecordId?: number, version = 0) => {
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: vitals,
      ...(crfDataRecordId && { crfDataRecordId }),
      version,
      values: { sbp: 120, dbp: 80, hr: 70, temp: 36.5 },
      ...(submit && { submit: true }),
    });
    expect(res.status).toBe(200);
    return res.body.data.crfDataRecordId as number;
  };

  beforeAll(async () => {
    t = await createTestApp();
    let crfIds: Record<string, number>;
    ({ admin, studyId, crfIds } = await openDemoStudy(t));
    vitals = crfIds['生命体征']!;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('STUDY-09/SUBJ-01: enrolment, saves, submits, state changes, queries, deletion and restore keep the counts', async () => {
    const a = await enrol();
    const b = await enrol();
    const c = await enrol();
    const draft = await save(a);
    const submitted = await save(b, true);
    await save(c, true);
    let kept = await expectCountsKept();
    expect(kept.subjects).toMatchObject({ total: 3, active: 3, withdrawn: 0 });
    expect(kept.forms).toMatchObject({ incomplete: 1, submitted: 2, doubt: 0 });

    // A save that changes values only appends nothing.
    const [before] = await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from study_figure_changes`);
    await save(a, false, draft, 1);
    const [after] = await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from study_figure_changes`);
    expect(after!.n).toBe(before!.n);

    const opened = await t.call(admin, 'POST', '/api/business/doubt/open', {
      crfDataRecordId: submitted,
      itemName: 'sbp',
      doubtDescription: '请核实',
    });
    expect(opened.body.msg).toBe('开启质疑成功');
    kept = await expectCountsKept();
    expect(kept.doubts).toEqual({ open: 1, replied: 0, closed: 0 });
    // The form stays submitted (its 质疑中 state is shown, not stored) and counts among those with a query.
    expect(kept.forms).toMatchObject({ submitted: 2, doubt: 1 });
    const doubtId = opened.body.data.doubtId as number;
    await t.call(admin, 'PUT', '/api/business/doubt/reply', { doubtId, content: '已核实' });
    expect((await expectCountsKept()).doubts).toEqual({ open: 0, replied: 1, closed: 0 });
    await t.call(admin, 'PUT', '/api/business/doubt/close', { doubtId, content: '关闭' });
    kept = await expectCountsKept();
    expect(kept.doubts).toEqual({ open: 0, replied: 0, closed: 1 });
    expect(kept.forms).toMatchObject({ submitted: 2, doubt: 0 });

    const withdrawn = await t.call(admin, 'PUT', '/api/business/subjectRecord/state', {
      subjectRecordId: c,
      state: 2,
      reason: '退出',
    });
    expect(withdrawn.status).toBe(200);
    expect((await expectCountsKept()).subjects).toMatchObject({ total: 3, active: 2, withdrawn: 1 });
    const removed = await t.call(
      admin,
      'DELETE',
      `/api/business/subjectRecord?subjectRecordId=${a}&reason=${encodeURIComponent('重复录入')}`,
    );
    expect(removed.status).toBe(200);
    kept = await expectCountsKept();
    expect(kept.subjects).toMatchObject({ total: 2 });
    expect(await listTotal({ deleted: true })).toBe(1);
    await t.call(admin, 'PUT', '/api/business/subjectRecord/restore', { subjectRecordId: a, reason: '误删' });
    expect((await expectCountsKept()).subjects).toMatchObject({ total: 3 });
  });

  it('STUDY-09: saves side by side, a fold during them and writes by SQL in one statement keep the counts', async () => {
    const records = await Promise.all(Array.from({ length: 8 }, () => enrol()));
    const fold = foldStudyFigures(t.db);
    await Promise.all(records.map((id, i) => save(id, i % 2 === 0)));
    await fold;
    await expectCountsKept();

    // One statement over many rows (an import's batch, a repair): counted per statement.
    await t.db.execute(sql`update subject_records set state = 1 where study_id = ${studyId} and state = 0`);
    await insertVisits(t, studyId, [
      ['术后1月', 3, 1],
      ['术后1月', 4, 2],
      ['术后3月', 1, 3],
      ['电话', 3, 4, true],
    ]);
    await t.db.execute(sql`update follow_records set state = 5 where study_id = ${studyId} and occurrence = 3`);
    const kept = await expectCountsKept();
    expect(kept.subjects).toMatchObject({ active: 0, completed: 10, withdrawn: 1 });
    expect(kept.followCompliance).toEqual([
      { visitName: '术后1月', onTime: 1, late: 1, overdue: 0, lost: 0, pending: 0 },
      { visitName: '术后3月', onTime: 0, late: 0, overdue: 0, lost: 1, pending: 0 },
    ]);

    // Folded, the deltas are gone and the figures unchanged.
    await foldStudyFigures(t.db);
    const [left] = await queryRows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from study_figure_changes where study_id = ${studyId}`,
    );
    expect(left!.n).toBe(0);
    expect(await home()).toEqual(kept);
  });

  it("STUDY-09: enrolment months follow the study's zone when it changes", async () => {
    const [row] = await queryRows<{ created_at: string }>(
      t.db,
      sql`update subjects set created_at = '2026-10-31T17:00:00Z' where id = (
            select max(id) from subjects where study_id = ${studyId}) returning created_at`,
    );
    expect(row).toBeDefined();
    const inShanghai = (await expectCountsKept()).enrolment as { month: string; count: number }[];
    expect(inShanghai.find((m) => m.month === '2026-11')).toBeDefined();
    // 2026-10-31T17:00Z is 01:00 on 1 November in Shanghai and still 31 October in London.
    await t.db.update(studies).set({ timeZone: 'Europe/London' }).where(eq(studies.studyId, studyId));
    const inLondon = (await home()).enrolment as { month: string; count: number }[];
    expect(inLondon.find((m) => m.month === '2026-10')?.count).toBe(1);
    await expectCountsKept();
    await t.db.update(studies).set({ timeZone: 'Asia/Shanghai' }).where(eq(studies.studyId, studyId));
    expect((await home()).enrolment).toEqual(inShanghai);
  });
});
