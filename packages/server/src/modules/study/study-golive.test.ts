import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey } from '@ecrf/core';
import { queryRows } from '../../db/client.js';
import {
  auditEvents,
  calendarEvents,
  consultations,
  followRecordCrfs,
  followRecords,
  medicalRecords,
  patientBindCodes,
  patientSessions,
  codedItems,
  qualityFindings,
  qualityRuns,
  randomizationConfigs,
  randomizationSlots,
  randomizationStrata,
  randomizationStudies,
  randomizations,
  recognitions,
  storedFiles,
  studies,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';
import { chainRows, sealUnchainedRows, verifyAuditChains } from '../audit/audit-chain.js';
import { casebookCount } from '../home/study-figures.js';

let t: TestApp;
let admin: string;
let demo: number;
let crfIds: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId: demo, crfIds } = await openDemoStudy(t));
});
afterAll(() => t.close());

interface Enrolled {
  id: number;
  subjectRecordId: number;
  test: boolean;
}

async function enrol(studyId: number, subjectName: string, extra: object = {}): Promise<Enrolled> {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName,
    gender: 1,
    diseaseCode: 'LSS',
    deptId: 1,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Enrolled;
}

const trailOf = (subjectRecordId: number) =>
  t.db.select().from(auditEvents).where(eq(auditEvents.subjectRecordId, subjectRecordId));

/** Vitals saved and submitted: the patient's form record. */
async function saveVitals(p: Enrolled) {
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: p.subjectRecordId,
    crfId: crfIds['生命体征'],
    version: 0,
    values: { sbp: 130, dbp: 80, hr: 70 },
    submit: true,
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  return saved.body.data.crfDataRecordId as number;
}

/** Stratified permuted blocks by site, no eligibility: every patient of site 1 falls in stratum site=S1. */
const stratified = {
  method: 'stratified_block',
  arms: [
    { code: 'A', label: '试验组', ratio: 1 },
    { code: 'B', label: '对照组', ratio: 1 },
  ],
  blinded: true,
  blockSizes: [4],
  listLength: 20,
  factors: [
    {
      key: 'site',
      label: '中心',
      source: 'dept',
      weight: 1,
      levels: [
        { code: 'S1', label: '根机构', values: ['1'] },
        { code: 'S2', label: '其他中心', values: ['2'] },
      ],
    },
  ],
};

const randomize = async (studyId: number, p: Enrolled) => {
  const res = await t.call(admin, 'POST', '/api/business/randomization/subject', { studyId, subjectId: p.id });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { randomizationNo: string; kitCode: string; stratum: string; test: boolean };
};

describe('测试: a new study starts in test, and its patients are test patients', () => {
  it('a new study is in 测试 (detail and list say so); its patients are marked and their trail rows are off the chain', async () => {
    const created = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '测试模式',
      studyCode: 'GL01',
      diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const studyId = created.body.data.id as number;
    expect(created.body.data).toMatchObject({ mode: 'test', wentLiveAt: null });
    expect((await t.call(admin, 'GET', `/api/business/study/${studyId}`)).body.data).toMatchObject({ mode: 'test' });
    const listed = (await t.call(admin, 'GET', '/api/business/study/list?pageSize=50')).body.data.list as Array<{
      id: number;
      mode: string;
    }>;
    expect(listed.find((s) => s.id === studyId)?.mode).toBe('test');
    expect(listed.find((s) => s.id === demo)?.mode).toBe('production');

    const patient = await enrol(studyId, '测甲', { identificationCode: 'GL01-001' });
    expect(patient.test).toBe(true);
    expect((await t.call(admin, 'GET', `/api/business/subject/${patient.id}`)).body.data.test).toBe(true);
    const rows = (
      await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', { studyId, pageNum: 1, pageSize: 10 })
    ).body.data.list as Array<{ id: number; test: boolean }>;
    expect(rows.map((r) => [r.id, r.test])).toEqual([[patient.id, true]]);

    // The patient's rows: test rows, no hash; the study's own rows stay on the chain.
    const trail = await trailOf(patient.subjectRecordId);
    expect(trail.map((r) => [r.action, r.test, r.hash, r.prevHash])).toEqual([['subject.create', true, null, null]]);
    const setup = await chainRows(t.db, eq(auditEvents.studyId, studyId));
    expect(setup.find((r) => r.action === 'study.create')).toMatchObject({ test: false, hash: expect.any(String) });
    expect((await verifyAuditChains(t.db)).ok).toBe(true);
    // The start-up sealing of rows written before the chain leaves test rows alone.
    expect(await t.asOwner(sealUnchainedRows)).toBe(0);
    expect((await trailOf(patient.subjectRecordId))[0]!.hash).toBeNull();
  });
});

describe('test patients of a production study, and the test randomization list', () => {
  let p1: Enrolled;
  let p2: Enrolled;
  let tp: Enrolled;

  beforeAll(async () => {
    p1 = await enrol(demo, '正式甲');
    tp = await enrol(demo, '测试乙', { test: true });
    p2 = await enrol(demo, '正式丙');
    const saved = await t.call(admin, 'POST', '/api/business/randomization', { studyId: demo, config: stratified });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  });

  it('POST subject with test: true in a production study makes a test patient; without it a production patient', async () => {
    expect([p1.test, tp.test, p2.test]).toEqual([false, true, false]);
    const [row] = await t.db.select({ test: subjects.test }).from(subjects).where(eq(subjects.id, tp.id));
    expect(row!.test).toBe(true);
    expect((await t.call(admin, 'GET', `/api/business/subject/${tp.id}`)).body.data.test).toBe(true);
    const [created] = await trailOf(tp.subjectRecordId);
    expect(created).toMatchObject({ action: 'subject.create', test: true, hash: null });
    expect(created!.newValue).toMatchObject({ test: true });
    const [production] = await trailOf(p1.subjectRecordId);
    expect(production).toMatchObject({ test: false, hash: expect.any(String) });
    expect(production!.newValue).not.toHaveProperty('test');
    // The live study's patient count leaves its test patient out.
    expect((await t.call(admin, 'GET', `/api/business/study/${demo}`)).body.data.subjectCount).toBe(2);
  });

  it('a test patient takes T0001 from the test list (its own stratum, seed and kit code); production slots are untouched', async () => {
    const first = await randomize(demo, p1);
    expect(first).toMatchObject({ randomizationNo: 'R0001', stratum: 'site=S1', test: false });
    const test = await randomize(demo, tp);
    expect(test).toMatchObject({ randomizationNo: 'T0001', stratum: 'site=S1', test: true });
    expect(test.kitCode).toMatch(/^TEST-[0-9A-Z]{10}$/);
    // The next production patient takes production's slot 2: the test randomization took none of its slots.
    const second = await randomize(demo, p2);
    expect(second).toMatchObject({ randomizationNo: 'R0002', test: false });

    const rows = await t.db.select().from(randomizations).where(eq(randomizations.studyId, demo));
    const bySubject = new Map(rows.map((r) => [r.subjectId, r]));
    expect(bySubject.get(p1.id)).toMatchObject({ stratum: 'site=S1', slot: 1, randomizationNo: 1, test: false });
    expect(bySubject.get(p2.id)).toMatchObject({ stratum: 'site=S1', slot: 2, randomizationNo: 2, test: false });
    expect(bySubject.get(tp.id)).toMatchObject({ stratum: 'test:site=S1', slot: 1, randomizationNo: -1, test: true });
    const [config] = await t.db.select().from(randomizationConfigs).where(eq(randomizationConfigs.studyId, demo));
    expect(config!.testSeed).toMatch(/^[0-9a-f]{32}$/);
    expect(config!.testSeed).not.toBe(config!.seed);
    const strata = await t.db.select().from(randomizationStrata).where(eq(randomizationStrata.studyId, demo));
    expect(strata.find((s) => s.stratum === 'site=S1')).toMatchObject({ used: 2, size: 20 });
    expect(strata.find((s) => s.stratum === 'test:site=S1')).toMatchObject({ used: 1, size: 20 });
    const testSlots = await t.db
      .select()
      .from(randomizationSlots)
      .where(and(eq(randomizationSlots.studyId, demo), eq(randomizationSlots.stratum, 'test:site=S1')));
    expect(testSlots).toHaveLength(20);
    expect(testSlots.every((s) => s.kitCode.startsWith('TEST-'))).toBe(true);
    const [state] = await t.db.select().from(randomizationStudies).where(eq(randomizationStudies.studyId, demo));
    expect(state).toMatchObject({ lastNumber: 2, lastTestNumber: 1 });

    // Production's allocation list and figures know nothing of it; the configuration is locked by production only.
    const list = await t.call(admin, 'GET', `/api/business/randomization/list/config?studyId=${demo}&pageSize=100`);
    expect(list.body.data.total).toBe(40);
    expect(list.body.data.list.filter((s: { used: boolean }) => s.used)).toHaveLength(2);
    const result = await t.call(admin, 'GET', `/api/business/randomization/result?studyId=${demo}`);
    expect(result.body.data.total).toBe(2);
    const shown = await t.call(admin, 'GET', `/api/business/randomization/subject?studyId=${demo}&subjectId=${tp.id}`);
    expect(shown.body.data).toMatchObject({ randomizationNo: 'T0001', test: true });
    // The test patient's randomization is audited off the chain.
    const assigned = (await trailOf(tp.subjectRecordId)).find((r) => r.action === 'randomization.assign');
    expect(assigned).toMatchObject({ test: true, hash: null, itemName: 'T0001' });
    expect((await verifyAuditChains(t.db)).ok).toBe(true);
  });
});

describe('上线', () => {
  let studyCode: string;
  let production: Enrolled;
  let tests: Enrolled[];
  const testFile = 'a'.repeat(32);
  const productionFile = 'b'.repeat(32);

  /** Every row of the tables with a patient reference that names one of these patients. */
  async function leftOf(patients: Enrolled[]) {
    const ids = patients.map((p) => p.id);
    const records = patients.map((p) => p.subjectRecordId);
    const list = (values: number[]) =>
      sql.join(
        values.map((v) => sql`${v}::int`),
        sql`, `,
      );
    const [row] = await queryRows<Record<string, number>>(
      t.db,
      sql`select
        (select count(*) from subjects where id in (${list(ids)}))::int as subjects,
        (select count(*) from subject_records where id in (${list(records)}))::int as subject_records,
        (select count(*) from crf_data_records where subject_record_id in (${list(records)}))::int as crf_data_records,
        (select count(*) from applied_requests where subject_record_id in (${list(records)}))::int as applied_requests,
        (select count(*) from audit_events where subject_record_id in (${list(records)}))::int as audit_events,
        (select count(*) from signatures where subject_record_id in (${list(records)}))::int as signatures,
        (select count(*) from doubts where subject_record_id in (${list(records)}))::int as doubts,
        (select count(*) from doubt_messages m join doubts d on d.id = m.doubt_id
          where d.subject_record_id in (${list(records)}))::int as doubt_messages,
        (select count(*) from item_comments where subject_record_id in (${list(records)}))::int as item_comments,
        (select count(*) from quality_findings where subject_record_id in (${list(records)}))::int as quality_findings,
        (select count(*) from coded_items where subject_record_id in (${list(records)}))::int as coded_items,
        (select count(*) from follow_records where subject_id in (${list(ids)}))::int as follow_records,
        (select count(*) from follow_record_crfs c join follow_records f on f.id = c.follow_record_id
          where f.subject_id in (${list(ids)}))::int as follow_record_crfs,
        (select count(*) from randomizations where subject_id in (${list(ids)}))::int as randomizations,
        (select count(*) from randomization_unblindings where subject_id in (${list(ids)}))::int as unblindings,
        (select count(*) from recognitions where subject_record_id in (${list(records)}))::int as recognitions,
        (select count(*) from medical_records where subject_id in (${list(ids)}))::int as medical_records,
        (select count(*) from patient_bind_codes where subject_id in (${list(ids)}))::int as patient_bind_codes,
        (select count(*) from patient_sessions where subject_id in (${list(ids)}))::int as patient_sessions,
        (select count(*) from consultations where subject_id in (${list(ids)}))::int as consultations,
        (select count(*) from calendar_events where subject_id in (${list(ids)}))::int as calendar_events,
        (select count(*) from study_locks where scope = 'subject' and target_id in (${list(records)}))::int as study_locks,
        (select count(*) from outbox_events where (payload->>'subjectId')::int in (${list(ids)}))::int as outbox_events`,
    );
    return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
  }

  /** Rows a test patient has that the API offers no quick way to make here: inserted as their services would. */
  async function hangOn(p: Enrolled, fileKey: string, crfDataRecordId: number) {
    const now = t.clock();
    const [visit] = await t.db
      .insert(followRecords)
      .values({
        studyId: demo,
        subjectId: p.id,
        subjectRecordId: p.subjectRecordId,
        visitName: '术后1月',
        plannedDate: '2026-12-22',
        custom: true,
      })
      .returning({ id: followRecords.id });
    await t.db
      .insert(followRecordCrfs)
      .values({ studyId: demo, followRecordId: visit!.id, crfId: crfIds['生命体征']!, crfDataRecordId });
    await t.db.insert(storedFiles).values({
      fileKey,
      studyId: demo,
      fileName: 'x.png',
      contentType: 'image/png',
      size: 1,
      sha256: '0'.repeat(64),
      createdBy: 1,
    });
    await t.db.insert(medicalRecords).values({
      studyId: demo,
      subjectId: p.id,
      title: '出院小结',
      category: '出院小结',
      files: [{ fileKey, fileName: 'x.png' }],
      crfDataRecordId,
    });
    await t.db.insert(recognitions).values({
      studyId: demo,
      userId: 1,
      fileKey,
      tempIdHash: fileKey.replace(/./g, 'c') + fileKey.slice(0, 32),
      expiresAt: now,
      subjectRecordId: p.subjectRecordId,
      crfDataRecordId,
    });
    await t.db
      .insert(patientBindCodes)
      .values({ studyId: demo, subjectId: p.id, codeHash: `${fileKey}${p.id}`.slice(0, 64), expiresAt: now });
    await t.db.insert(patientSessions).values({
      studyId: demo,
      subjectId: p.id,
      tokenHash: `s${fileKey}${p.id}`.slice(0, 64),
      openId: 'o',
      expiresAt: now,
    });
    await t.db
      .insert(consultations)
      .values({ studyId: demo, subjectId: p.id, source: 'staff', title: '复诊', question: '何时复诊' });
    await t.db.insert(calendarEvents).values({
      studyId: demo,
      ownerId: 1,
      title: '随访电话',
      startAt: now,
      endAt: now,
      subjectId: p.id,
    });
    // A data quality run's finding on the patient's record (数据核查).
    const [run] = await t.db
      .insert(qualityRuns)
      .values({ studyId: demo, scope: { kind: 'study' }, state: 'done' })
      .returning({ id: qualityRuns.id });
    await t.db.insert(qualityFindings).values({
      runId: run!.id,
      studyId: demo,
      subjectRecordId: p.subjectRecordId,
      crfDataRecordId,
      crfId: null,
      itemName: 'hr',
      ruleKey: 'range',
      ruleText: '心率高于参考范围，请核实',
    });
    // A coded verbatim of the patient's record (医学编码).
    await t.db.insert(codedItems).values({
      studyId: demo,
      subjectRecordId: p.subjectRecordId,
      crfDataRecordId,
      itemName: 'history_note',
      verbatim: '头痛',
    });
  }

  beforeAll(async () => {
    studyCode = (await t.call(admin, 'GET', `/api/business/study/${demo}`)).body.data.studyCode as string;
    // The demo study back in 测试: its patients so far stay production patients (they must survive the purge),
    // every patient enrolled from now on is a test patient.
    await t.db.update(studies).set({ mode: 'test', wentLiveAt: null }).where(eq(studies.studyId, demo));
    const [p1] = await t.db
      .select({ id: subjects.id, subjectRecordId: subjectRecords.id })
      .from(subjects)
      .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
      .where(eq(subjects.subjectName, '正式甲'));
    const [tp] = await t.db
      .select({ id: subjects.id, subjectRecordId: subjectRecords.id })
      .from(subjects)
      .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
      .where(eq(subjects.subjectName, '测试乙'));
    production = { ...p1!, test: false };
    const trainee = await enrol(demo, '培训丁');
    expect(trainee.test).toBe(true);
    tests = [{ ...tp!, test: true }, trainee];

    await saveVitals(production);
    for (const p of tests) {
      const record = await saveVitals(p);
      const opened = await t.call(admin, 'POST', '/api/business/doubt/open', {
        crfDataRecordId: record,
        itemName: 'hr',
        doubtDescription: '请核实心率',
      });
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      const replied = await t.call(admin, 'PUT', '/api/business/doubt/reply', {
        doubtId: opened.body.data.doubtId,
        content: '已核实',
      });
      expect(replied.status, JSON.stringify(replied.body)).toBe(200);
      const commented = await t.call(admin, 'POST', '/api/business/crf/comment', {
        studyId: demo,
        crfDataRecordId: record,
        itemName: 'hr',
        content: '来源：护理记录单',
      });
      expect(commented.status, JSON.stringify(commented.body)).toBe(200);
      const signed = await t.call(admin, 'PUT', '/api/v1/business/subject/sign', {
        subjectRecordId: p.subjectRecordId,
        password: TEST_ADMIN_PASSWORD,
      });
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      await hangOn(p, p === trainee ? `${testFile.slice(0, 31)}1` : testFile, record);
    }
    await randomize(demo, trainee);
    const emergency = await t.call(admin, 'PUT', '/api/business/randomization/unblind', {
      studyId: demo,
      subjectId: trainee.id,
      reason: '严重不良事件',
      password: TEST_ADMIN_PASSWORD,
    });
    expect(emergency.status, JSON.stringify(emergency.body)).toBe(200);
    const locked = await t.call(admin, 'PUT', '/api/business/lock', {
      studyId: demo,
      scope: 'subject',
      targetId: trainee.subjectRecordId,
      locked: true,
      reason: '培训结束',
    });
    expect(locked.status, JSON.stringify(locked.body)).toBe(200);
    // A production file, named by the production patient's medical record: it stays.
    await t.db.insert(storedFiles).values({
      fileKey: productionFile,
      studyId: demo,
      fileName: 'y.png',
      contentType: 'image/png',
      size: 1,
      sha256: '0'.repeat(64),
      createdBy: 1,
    });
    await t.db.insert(medicalRecords).values({
      studyId: demo,
      subjectId: production.id,
      title: '入院记录',
      category: '入院记录',
      files: [{ fileKey: productionFile, fileName: 'y.png' }],
    });
  });

  it('refuses a member without 上线, a wrong study code and a study already live', async () => {
    const plain = await addStudyMember(t, admin, demo, '13500000001', { permissions: [] });
    expect((await t.call(plain, 'GET', `/api/business/study/golive?studyId=${demo}`)).status).toBe(403);
    const refused = await t.call(plain, 'POST', '/api/business/study/golive', {
      studyId: demo,
      confirmCode: studyCode,
      reason: '方案已批准',
    });
    expect(refused.status).toBe(403);
    const holder = await addStudyMember(t, admin, demo, '13500000002', {
      permissions: [buttonKey('business.study.golive')],
    });
    expect((await t.call(holder, 'GET', `/api/business/study/golive?studyId=${demo}`)).status).toBe(200);

    const wrong = await t.call(admin, 'POST', '/api/business/study/golive', {
      studyId: demo,
      confirmCode: `${studyCode}X`,
      reason: '方案已批准',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toBe('项目编号不一致');
    const noReason = await t.call(admin, 'POST', '/api/business/study/golive', {
      studyId: demo,
      confirmCode: studyCode,
      reason: ' ',
    });
    expect(noReason.status).toBe(400);
    const [still] = await t.db.select({ mode: studies.mode }).from(studies).where(eq(studies.studyId, demo));
    expect(still!.mode).toBe('test');
    expect((await leftOf(tests)).subjects).toBe(2);

    // The 项目管理员 role of a new study holds 上线.
    const roles = await t.call(admin, 'GET', `/api/system/studyRoles?studyId=${demo}`);
    const manager = (roles.body.data.list ?? roles.body.data).find(
      (r: { roleName: string }) => r.roleName === '项目管理员',
    );
    expect(manager.permissions).toContain('btn:business.study.golive');
  });

  it('purges the test patients and everything on them in one step, as previewed; the trail keeps one chained row with the counts', async () => {
    expect((await verifyAuditChains(t.db)).ok).toBe(true);
    const testRows = await t.db
      .select({ hash: auditEvents.hash })
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, demo), eq(auditEvents.test, true)));
    expect(testRows.length).toBeGreaterThan(10);
    expect(testRows.every((r) => r.hash === null)).toBe(true);

    const before = await leftOf(tests);
    const preview = await t.call(admin, 'GET', `/api/business/study/golive?studyId=${demo}`);
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.data).toEqual({
      mode: 'test',
      counts: {
        subjects: 2,
        crfRecords: before.crf_data_records,
        doubts: before.doubts,
        randomizations: 2,
        followRecords: 2,
        files: 2,
        auditRows: testRows.length,
      },
    });
    expect(before).toMatchObject({
      crf_data_records: 2,
      doubts: 2,
      item_comments: 2,
      quality_findings: 2,
      coded_items: 2,
      signatures: 2,
      unblindings: 1,
      study_locks: 1,
    });
    const productionBefore = await leftOf([production]);

    const live = await t.call(admin, 'POST', '/api/business/study/golive', {
      studyId: demo,
      confirmCode: studyCode,
      reason: '伦理批准，正式入组',
    });
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    expect(live.body.msg).toBe('上线成功');
    expect(live.body.data).toEqual({ wentLiveAt: t.clock().toISOString(), purged: preview.body.data.counts });

    // Nothing of the test patients is left in any table that names a patient; the production patient is whole.
    const after = await leftOf(tests);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    // (Its delivered domain events may be pruned meanwhile: not compared.)
    const { outbox_events: _o, ...productionRows } = productionBefore;
    expect(await leftOf([production])).toMatchObject(productionRows);
    const files = await t.db
      .select({ key: storedFiles.fileKey })
      .from(storedFiles)
      .where(eq(storedFiles.studyId, demo));
    expect(files.map((f) => f.key)).toEqual([productionFile]);
    const events = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(calendarEvents)
      .where(eq(calendarEvents.studyId, demo));
    expect(Number(events[0]!.n)).toBe(2);

    // The trail: no test row left, one chained row with the counts and the reason, and the chain holds.
    const left = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, demo), eq(auditEvents.test, true)));
    expect(left).toEqual([]);
    const golive = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, demo), eq(auditEvents.action, 'study.golive')));
    expect(golive).toHaveLength(1);
    expect(golive[0]).toMatchObject({
      reason: '伦理批准，正式入组',
      test: false,
      hash: expect.any(String),
      newValue: { mode: 'production', purged: preview.body.data.counts },
    });
    expect((await verifyAuditChains(t.db)).ok).toBe(true);

    // The study is live; the test list starts again; the home figures count what is left.
    const detail = (await t.call(admin, 'GET', `/api/business/study/${demo}`)).body.data;
    expect(detail).toMatchObject({ mode: 'production', wentLiveAt: t.clock().toISOString() });
    const [state] = await t.db.select().from(randomizationStudies).where(eq(randomizationStudies.studyId, demo));
    expect(state).toMatchObject({ lastNumber: 2, lastTestNumber: 0 });
    const strata = await t.db.select().from(randomizationStrata).where(eq(randomizationStrata.studyId, demo));
    expect(strata.map((s) => s.stratum).sort()).toEqual(['site=S1', 'site=S2']);
    const [{ n: casebooks }] = (await queryRows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from subject_records where study_id = ${demo} and deleted_at is null`,
    )) as [{ n: number }];
    expect(await casebookCount(t.db, demo)).toBe(Number(casebooks));

    const again = await t.call(admin, 'POST', '/api/business/study/golive', {
      studyId: demo,
      confirmCode: studyCode,
      reason: '再次上线',
    });
    expect(again.status).toBe(409);
    expect(again.body.msg).toBe('项目已上线');

    // After go-live a new patient is a production patient unless entered as a test patient.
    expect((await enrol(demo, '正式戊')).test).toBe(false);
    const trainee = await enrol(demo, '测试己', { test: true });
    expect(trainee.test).toBe(true);
    expect((await randomize(demo, trainee)).randomizationNo).toBe('T0001');
  });
});
