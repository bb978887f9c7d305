import { eq, sql } from 'drizzle-orm';
import {
  allStudyPermissionKeys,
  buttonKey,
  QUALITY_MSG,
  QUALITY_RULE,
  qualityDashboardSchema,
  qualityFindingListSchema,
  qualityQueriesResultSchema,
  qualityRunListSchema,
  qualityRunSchema,
  qualityStartedSchema,
  type QualityFinding,
  type QualityScope,
} from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../db/client.js';
import { doubts, qualityFindings, qualityRuns, subjectRecords, subjects } from '../../db/schema/index.js';
import { contractData } from '../../test/contract.js';
import { enrolDemoPatient } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';
import { waitForJob } from '../export/export.service.js';

/**
 * 数据核查 (issue 37) through the HTTP API: a run over the two-site demo study with planted errors finds exactly them
 * (a blank required item, a value out of its reference range, an edit check, a visit date before enrolment, a
 * duplicate patient); runs by site and by form; batch queries through the query service, once per finding, refused
 * under a lock; the site scope of runs and findings; the study key. Runs on PGlite and, with TEST_DATABASE_URL, on
 * PostgreSQL.
 */
let t: TestApp;
let s: TwoSiteStudy;
let vitalsId: number;
let followUpId: number;
let vitalsA: number;
let vitalsB: number;
let followUpA: number;
let twinA: number;

const save = async (subjectRecordId: number, crfId: number, values: Record<string, unknown>) => {
  const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', { subjectRecordId, crfId, version: 0, values });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.crfDataRecordId as number;
};

/** Starts a run and waits for its job (the job's own events, never a sleep); answers the run as GET /run reads it. */
async function runChecks(token: string, scope: QualityScope) {
  const started = await t.call(token, 'POST', '/api/business/quality/run', { studyId: s.studyId, scope });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const { runId, jobId } = contractData(qualityStartedSchema, started);
  expect((await waitForJob(t.ctx, jobId, 60_000))?.state).toBe('done');
  return runId;
}

const getRun = async (token: string, runId: number) =>
  contractData(
    qualityRunSchema,
    await t.call(token, 'GET', `/api/business/quality/run?studyId=${s.studyId}&runId=${runId}`),
  );

async function findings(token: string, runId: number, ruleKey?: string): Promise<QualityFinding[]> {
  const rule = ruleKey ? `&ruleKey=${encodeURIComponent(ruleKey)}` : '';
  const res = await t.call(
    token,
    'GET',
    `/api/business/quality/findings?studyId=${s.studyId}&runId=${runId}${rule}&pageNum=1&pageSize=100`,
  );
  return contractData(qualityFindingListSchema, res).list;
}

/** A finding in short: patient, form, item, rule. */
const short = (f: QualityFinding) => [f.identificationCode, f.crfTitle, f.itemName, f.ruleKey];

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  vitalsId = s.crfIds['生命体征']!;
  followUpId = s.crfIds['术后随访']!;
  // Planted: 收缩压 left blank (required) at site A; 心率 150 (above its reference range) at site B.
  vitalsA = await save(s.patientA.subjectRecordId, vitalsId, { dbp: '80', hr: '72' });
  vitalsB = await save(s.patientB.subjectRecordId, vitalsId, { sbp: '120', dbp: '80', hr: '150' });
  // A follow-up visit dated before the patient's enrolment (the test clock's 2026-11-22), with ODI 50 (edit check).
  followUpA = await save(s.patientA.subjectRecordId, followUpId, { fu_date: '2026-01-01', odi: '50' });
  // A second patient at site A with patient A's name and birth date.
  const twin = await enrolDemoPatient(t, s.admin, s.studyId, { subjectName: '甲院患者' });
  twinA = twin.subjectRecordId;
  const [row] = await t.db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, twinA));
  await t.db.update(subjects).set({ deptId: s.siteA }).where(eq(subjects.id, row!.subjectId));
});
afterAll(() => t.close());

const codeOf = (subjectRecordId: number) =>
  t.db
    .select({ code: subjects.identificationCode })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(eq(subjectRecords.id, subjectRecordId))
    .then((rows) => rows[0]!.code);

describe('数据核查', () => {
  let studyRun: number;
  const editCheck = () => `editCheck:${followUpId}:odi:0`;

  it('quality: a run over the whole study finds exactly the planted errors, counted per rule with the rule’s words', async () => {
    studyRun = await runChecks(s.admin, { kind: 'study' });
    const run = await getRun(s.admin, studyRun);
    expect(run).toMatchObject({ state: 'done', progress: 100, scope: { kind: 'study' }, findingsCount: 6 });
    expect(run.recordsChecked).toBeGreaterThanOrEqual(3);
    expect(Object.fromEntries(run.rules.map((r) => [r.ruleKey, [r.ruleText, r.count, r.open]]))).toEqual({
      [QUALITY_RULE.required]: ['必填项未填写', 1, 1],
      [QUALITY_RULE.range]: ['超出参考范围', 1, 1],
      [editCheck()]: ['ODI>40%，功能障碍较重，请核实', 1, 1],
      [QUALITY_RULE.visitBeforeEnrolment]: ['随访表单的日期早于入组日期', 1, 1],
      [QUALITY_RULE.duplicate]: ['疑似重复患者（姓名与出生日期相同）', 2, 2],
    });

    const a = s.patientA.identificationCode;
    const b = s.patientB.identificationCode;
    const all = await findings(s.admin, studyRun);
    expect(all.map(short).sort()).toEqual(
      [
        [a, '生命体征', 'sbp', QUALITY_RULE.required],
        [b, '生命体征', 'hr', QUALITY_RULE.range],
        [a, '术后随访', 'odi', editCheck()],
        [a, '术后随访', 'fu_date', QUALITY_RULE.visitBeforeEnrolment],
        [a, null, null, QUALITY_RULE.duplicate],
        [await codeOf(twinA), null, null, QUALITY_RULE.duplicate],
      ].sort(),
    );
    const required = all.find((f) => f.ruleKey === QUALITY_RULE.required)!;
    expect(required).toMatchObject({
      crfDataRecordId: vitalsA,
      siteName: '甲中心',
      itemTitle: '收缩压',
      ruleText: '收缩压：必填项未填写，请补充',
      status: 'open',
      doubtId: null,
    });
    expect(all.find((f) => f.ruleKey === QUALITY_RULE.range)).toMatchObject({
      crfDataRecordId: vitalsB,
      siteName: '乙中心',
      ruleText: '心率高于参考范围，请核实',
    });
    expect(all.find((f) => f.ruleKey === QUALITY_RULE.visitBeforeEnrolment)).toMatchObject({
      crfDataRecordId: followUpA,
      itemTitle: '随访日期',
      ruleText: '随访日期（2026-01-01）早于入组日期（2026-11-22），请核实',
    });
    // The drill-down of one rule, and the rows and counts the run wrote.
    expect((await findings(s.admin, studyRun, QUALITY_RULE.duplicate)).map((f) => f.subjectRecordId).sort()).toEqual(
      [s.patientA.subjectRecordId, twinA].sort(),
    );
    const [stored] = await t.db.select().from(qualityRuns).where(eq(qualityRuns.id, studyRun));
    expect(stored).toMatchObject({ state: 'done', findingsCount: 6, startedBy: expect.any(Number) });
    expect(stored!.counts).toMatchObject({ [QUALITY_RULE.duplicate]: 2, [QUALITY_RULE.required]: 1 });
  });

  it('quality: a run of one site covers its patients only; a run of one form its records only and no duplicates', async () => {
    const siteRun = await runChecks(s.admin, { kind: 'site', deptId: s.siteB });
    expect((await findings(s.admin, siteRun)).map(short)).toEqual([
      [s.patientB.identificationCode, '生命体征', 'hr', QUALITY_RULE.range],
    ]);
    const formRun = await runChecks(s.admin, { kind: 'form', crfId: vitalsId });
    const found = await findings(s.admin, formRun);
    expect(found.map((f) => f.ruleKey).sort()).toEqual([QUALITY_RULE.range, QUALITY_RULE.required]);
    expect((await getRun(s.admin, formRun)).recordsChecked).toBe(2);
  });

  it('quality: a site-scoped member sees their sites’ findings only, and their run covers only their sites', async () => {
    const seen = await findings(s.nurseB.token, studyRun);
    expect(seen.map(short)).toEqual([[s.patientB.identificationCode, '生命体征', 'hr', QUALITY_RULE.range]]);
    const run = await getRun(s.nurseB.token, studyRun);
    expect(run.findingsCount).toBe(1);
    expect(run.rules.map((r) => r.ruleKey)).toEqual([QUALITY_RULE.range]);

    const own = await runChecks(s.nurseB.token, { kind: 'study' });
    expect((await findings(s.admin, own)).map((f) => f.subjectRecordId)).toEqual([s.patientB.subjectRecordId]);
    const outside = await t.call(s.nurseB.token, 'POST', '/api/business/quality/run', {
      studyId: s.studyId,
      scope: { kind: 'site', deptId: s.siteA },
    });
    expect(outside.status).toBe(403);
    expect(outside.body.msg).toBe(QUALITY_MSG.siteOutside);
    // Another study's form is no scope of this one.
    const foreign = await t.call(s.admin, 'POST', '/api/business/quality/run', {
      studyId: s.studyId,
      scope: { kind: 'form', crfId: 999_999 },
    });
    expect(foreign.status).toBe(400);
  });

  it('quality: batch queries raise one query per open finding with its words, once; locked data and patient-level findings are refused', async () => {
    const raise = async (body: Record<string, unknown>) =>
      contractData(
        qualityQueriesResultSchema,
        await t.call(s.admin, 'POST', '/api/business/quality/queries', {
          studyId: s.studyId,
          runId: studyRun,
          ...body,
        }),
      );
    const before = Number((await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from doubts`))[0]!.n);
    expect(await raise({ ruleKey: QUALITY_RULE.required })).toEqual({ raised: 1, refused: [] });
    const [queried] = await t.db
      .select()
      .from(qualityFindings)
      .where(eq(qualityFindings.ruleKey, QUALITY_RULE.required))
      .then((rows) => rows.filter((r) => r.runId === studyRun));
    expect(queried).toMatchObject({ status: 'queried', doubtId: expect.any(Number) });
    const [doubt] = await t.db.select().from(doubts).where(eq(doubts.id, queried!.doubtId!));
    expect(doubt).toMatchObject({
      crfDataRecordId: vitalsA,
      itemName: 'sbp',
      doubtDescription: '收缩压：必填项未填写，请补充',
      doubtType: 1,
    });

    // The same findings again: nothing more is raised.
    expect(await raise({ ruleKey: QUALITY_RULE.required })).toEqual({ raised: 0, refused: [] });
    expect(await raise({ findingIds: [queried!.id] })).toEqual({
      raised: 0,
      refused: [{ findingId: queried!.id, reason: QUALITY_MSG.notOpen }],
    });
    // A duplicate patient names no item: no query.
    const dup = await raise({ ruleKey: QUALITY_RULE.duplicate });
    expect(dup.raised).toBe(0);
    expect(dup.refused.map((r) => r.reason)).toEqual([QUALITY_MSG.patientLevel, QUALITY_MSG.patientLevel]);

    // A locked record takes no query: refused with the lock's words, the finding stays open.
    const locked = await t.call(s.admin, 'PUT', '/api/business/lock', {
      studyId: s.studyId,
      scope: 'record',
      targetId: vitalsB,
      locked: true,
      reason: '核查完成',
    });
    expect(locked.status, JSON.stringify(locked.body)).toBe(200);
    const refused = await raise({ ruleKey: QUALITY_RULE.range });
    expect(refused.raised).toBe(0);
    expect(refused.refused).toHaveLength(1);
    expect(refused.refused[0]!.reason).toMatch(/锁定/);
    const rangeFinding = (await findings(s.admin, studyRun, QUALITY_RULE.range))[0]!;
    expect(rangeFinding.status).toBe('open');

    expect(await raise({ ruleKey: editCheck() })).toEqual({ raised: 1, refused: [] });
    const after = Number((await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from doubts`))[0]!.n);
    expect(after - before).toBe(2);
  });

  it('quality: the dashboard gives open findings per site and per rule for each finished run, under the site scope', async () => {
    const all = contractData(
      qualityDashboardSchema,
      await t.call(s.admin, 'GET', `/api/business/quality/dashboard?studyId=${s.studyId}`),
    );
    const first = all.runs.find((r) => r.runId === studyRun)!;
    // Six findings, two of them queried since.
    expect(first.open).toBe(4);
    expect(Object.fromEntries(first.bySite.map((x) => [x.siteName, x.open]))).toEqual({ 甲中心: 3, 乙中心: 1 });
    expect(Object.fromEntries(first.byRule.map((x) => [x.ruleKey, x.open]))).toEqual({
      [QUALITY_RULE.range]: 1,
      [QUALITY_RULE.visitBeforeEnrolment]: 1,
      [QUALITY_RULE.duplicate]: 2,
    });
    const siteB = contractData(
      qualityDashboardSchema,
      await t.call(s.nurseB.token, 'GET', `/api/business/quality/dashboard?studyId=${s.studyId}`),
    );
    expect(siteB.runs.find((r) => r.runId === studyRun)!.bySite.map((x) => x.siteName)).toEqual(['乙中心']);

    const runs = contractData(
      qualityRunListSchema,
      await t.call(s.admin, 'GET', `/api/business/quality/runs?studyId=${s.studyId}&pageNum=1&pageSize=10`),
    );
    expect(runs.total).toBe(4);
    expect(runs.list.at(-1)).toMatchObject({ runId: studyRun, findingsCount: 6, state: 'done' });
  });

  it('quality: findings on a form the member may not view are not shown, counted or queried', async () => {
    const keys = allStudyPermissionKeys(Object.values(s.crfIds)).filter((k) => !k.startsWith(`crf:${vitalsId}:`));
    const noVitals = await addStudyMember(t, s.admin, s.studyId, '13700000018', { permissions: keys });
    const all = await findings(s.admin, studyRun);
    const seen = await findings(noVitals, studyRun);
    expect(all.some((f) => f.crfId === vitalsId)).toBe(true);
    expect(seen.map((f) => f.findingId)).toEqual(all.filter((f) => f.crfId !== vitalsId).map((f) => f.findingId));
    const run = await getRun(noVitals, studyRun);
    expect(run.findingsCount).toBe(seen.length);
    const raised = await t.call(noVitals, 'POST', '/api/business/quality/queries', {
      studyId: s.studyId,
      runId: studyRun,
      findingIds: all.filter((f) => f.crfId === vitalsId).map((f) => f.findingId),
    });
    expect(contractData(qualityQueriesResultSchema, raised).raised).toBe(0);
  });

  it('quality: without 数据核查 every route is refused (403) and nothing is written', async () => {
    const keys = allStudyPermissionKeys(Object.values(s.crfIds)).filter((k) => k !== buttonKey('business.quality'));
    const plain = await addStudyMember(t, s.admin, s.studyId, '13700000019', { permissions: keys });
    const runsBefore = (await t.db.select().from(qualityRuns)).length;
    const q = `studyId=${s.studyId}`;
    for (const [method, url, body] of [
      ['POST', '/api/business/quality/run', { studyId: s.studyId, scope: { kind: 'study' } }],
      ['GET', `/api/business/quality/runs?${q}`],
      ['GET', `/api/business/quality/run?${q}&runId=${studyRun}`],
      ['GET', `/api/business/quality/findings?${q}&runId=${studyRun}`],
      ['POST', '/api/business/quality/queries', { studyId: s.studyId, runId: studyRun, ruleKey: 'range' }],
      ['GET', `/api/business/quality/dashboard?${q}`],
    ] as const) {
      expect((await t.call(plain, method, url, body)).status, `${method} ${url}`).toBe(403);
    }
    expect((await t.db.select().from(qualityRuns)).length).toBe(runsBefore);
  });
});
