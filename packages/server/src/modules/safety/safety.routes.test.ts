import { and, asc, eq, like } from 'drizzle-orm';
import { allStudyPermissionKeys, buttonKey, saeCountSchema, saeListSchema, saeReportSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditEvents, crfStageCrfs, crfStages, saeReports, studies } from '../../db/schema/index.js';
import { contractData } from '../../test/contract.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * Adverse events (不良事件 / SAE, issue 37) through the HTTP API with the test clock: the module's switch makes the
 * AE log form, a serious event's save starts the 24-hour clock, the list shows the time left and then 已超时, submit
 * and follow-up versions, audit rows, site scope, the permission and locks. PGlite, and PostgreSQL with
 * TEST_DATABASE_URL.
 */
let t: TestApp;
let s: TwoSiteStudy;
let aeCrfId: number;

const MIN = 60_000;
const HOUR = 3600_000;
const listUrl = (state?: string) =>
  `/api/business/safety/saes?studyId=${s.studyId}&pageNum=1&pageSize=20${state ? `&state=${state}` : ''}`;
const list = async (token: string, state?: string) =>
  contractData(saeListSchema, await t.call(token, 'GET', listUrl(state)));
/** The wall clock of the study's zone (Asia/Shanghai) at an instant, as the datetime item stores it. */
const shanghai = (at: Date) => new Date(at.getTime() + 8 * HOUR).toISOString().slice(0, 16).replace('T', ' ');

/** Each AE record's version, for the next save's optimistic check. */
const versions = new Map<number, number>();

async function saveAe(subjectRecordId: number, values: Record<string, unknown>, crfDataRecordId?: number) {
  const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: aeCrfId,
    version: crfDataRecordId ? versions.get(crfDataRecordId) : 0,
    ...(crfDataRecordId ? { crfDataRecordId } : {}),
    values: { ae_term: '肺炎', ae_start: '2026-11-20', ae_grade: '3', ae_causality: 'possible', ...values },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.ctx.events.drain();
  versions.set(res.body.data.crfDataRecordId, res.body.data.version);
  return res.body.data.crfDataRecordId as number;
}

const saeAudits = () =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.studyId, s.studyId), like(auditEvents.action, 'sae.%')))
    .orderBy(asc(auditEvents.id));

/** Moves the server clock; the members sign in again (their tokens expire in the hours that pass). */
async function advance(ms: number) {
  t.clock.advance(ms);
  s.admin = (await t.login()).token;
  for (const [member, userName] of [
    [s.nurseA, '13700000001'],
    [s.nurseB, '13700000002'],
    [s.monitor, '13700000003'],
  ] as const) {
    member.token = (await t.login(userName, 'Passw0rd')).token;
  }
}

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
});
afterAll(() => t.close());

describe('the AE module switch', () => {
  it('safety: turning it on makes the AE log form once, placed repeatable in its own stage, audited', async () => {
    const on = await t.call(s.admin, 'PUT', '/api/business/safety/module', { studyId: s.studyId, enabled: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.msg).toBe('不良事件模块已开启');
    aeCrfId = on.body.data.aeCrfId;
    expect(aeCrfId).toBeGreaterThan(0);
    const [study] = await t.db.select().from(studies).where(eq(studies.studyId, s.studyId));
    expect(study).toMatchObject({ aeEnabled: true, aeCrfId });
    const placed = await t.db
      .select({ repeat: crfStageCrfs.repeat, stage: crfStages.name })
      .from(crfStageCrfs)
      .innerJoin(crfStages, eq(crfStages.id, crfStageCrfs.stageId))
      .where(eq(crfStageCrfs.crfId, aeCrfId));
    expect(placed).toEqual([{ repeat: 0, stage: '不良事件' }]);
    // Off and on again keeps the same form.
    await t.call(s.admin, 'PUT', '/api/business/safety/module', { studyId: s.studyId, enabled: false });
    const again = await t.call(s.admin, 'PUT', '/api/business/safety/module', { studyId: s.studyId, enabled: true });
    expect(again.body.data.aeCrfId).toBe(aeCrfId);
    const audits = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.action, 'study.safety')));
    expect(audits).toHaveLength(3);
    const got = await t.call(s.admin, 'GET', `/api/business/safety/module?studyId=${s.studyId}`);
    expect(got.body.data).toEqual({ enabled: true, aeCrfId });
  });

  it('safety: a member without study:config cannot turn it off', async () => {
    const res = await t.call(s.nurseA.token, 'PUT', '/api/business/safety/module', {
      studyId: s.studyId,
      enabled: false,
    });
    expect(res.status).toBe(403);
  });
});

describe('the 24-hour clock', () => {
  let recordA: number;
  let reportId: number;
  const awareAt = new Date('2026-11-22T06:00:00Z');

  it('safety: a non-serious event starts no clock; a serious one with an awareness time makes report v1, pending, deadline +24h, and tells 安全性报告 holders of the patient’s site', async () => {
    const pushes = vi.spyOn(t.ctx.realtime, 'toUser');
    recordA = await saveAe(s.patientA.subjectRecordId, { ae_serious: '0' });
    expect(await t.db.select().from(saeReports)).toHaveLength(0);
    await saveAe(
      s.patientA.subjectRecordId,
      { ae_serious: '1', ae_criteria: ['hosp'], ae_aware: shanghai(awareAt) },
      recordA,
    );
    const rows = await t.db.select().from(saeReports);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ version: 1, kind: 'initial', state: 'pending', crfDataRecordId: recordA });
    expect(new Date(rows[0]!.deadlineAt).toISOString()).toBe('2026-11-23T06:00:00.000Z');
    reportId = rows[0]!.id;

    const noticed = pushes.mock.calls.filter(([, event]) => event === 'sae').map(([userId]) => userId);
    expect(noticed).toContain(s.nurseA.userId);
    expect(noticed).toContain(s.monitor.userId);
    expect(noticed).not.toContain(s.nurseB.userId);
    pushes.mockRestore();

    const [created] = await saeAudits();
    expect(created).toMatchObject({ action: 'sae.create', crfDataRecordId: recordA, itemName: `sae:${reportId}` });
    // A second save changing nothing else makes no second report.
    await saveAe(
      s.patientA.subjectRecordId,
      { ae_serious: '1', ae_criteria: ['hosp'], ae_aware: shanghai(awareAt), ae_outcome: 'recovering' },
      recordA,
    );
    expect(await t.db.select().from(saeReports)).toHaveLength(1);
  });

  it('safety: the list shows the time left by the server clock: 剩余 0小时1分 at 23h59m, 已超时 at 24h00m', async () => {
    const start = t.clock().getTime();
    await advance(awareAt.getTime() + 23 * HOUR + 59 * MIN - start);
    const [row] = (await list(s.nurseA.token)).list;
    expect(row).toMatchObject({
      saeReportId: reportId,
      identificationCode: expect.any(String),
      siteId: s.siteA,
      siteName: '甲中心',
      term: '肺炎',
      grade: '3',
      version: 1,
      state: 'pending',
      clockState: 'running',
      clockText: '剩余 0小时1分',
    });
    await advance(MIN);
    const [late] = (await list(s.nurseA.token)).list;
    expect(late).toMatchObject({ clockState: 'overdue', clockText: '已超时 0小时' });
    const count = contractData(
      saeCountSchema,
      await t.call(s.nurseA.token, 'GET', `/api/business/safety/count?studyId=${s.studyId}`),
    );
    expect(count).toEqual({ pending: 1 });
  });

  it('safety: a changed awareness time moves the deadline while pending (audited); 否 withdraws it; 是 again restarts it', async () => {
    const later = new Date(awareAt.getTime() + 2 * HOUR);
    await saveAe(
      s.patientA.subjectRecordId,
      { ae_serious: '1', ae_criteria: ['hosp'], ae_aware: shanghai(later) },
      recordA,
    );
    const [moved] = await t.db.select().from(saeReports).where(eq(saeReports.id, reportId));
    expect(new Date(moved!.deadlineAt).toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect((await list(s.admin)).list[0]).toMatchObject({ clockState: 'running', clockText: '剩余 2小时0分' });

    await saveAe(s.patientA.subjectRecordId, { ae_serious: '0' }, recordA);
    const [withdrawn] = await t.db.select().from(saeReports).where(eq(saeReports.id, reportId));
    expect(withdrawn!.state).toBe('withdrawn');
    expect(
      contractData(saeCountSchema, await t.call(s.admin, 'GET', `/api/business/safety/count?studyId=${s.studyId}`)),
    ).toEqual({ pending: 0 });

    await saveAe(
      s.patientA.subjectRecordId,
      { ae_serious: '1', ae_criteria: ['hosp'], ae_aware: shanghai(later) },
      recordA,
    );
    const [back] = await t.db.select().from(saeReports).where(eq(saeReports.id, reportId));
    expect(back!.state).toBe('pending');
    expect((await saeAudits()).map((a) => a.action)).toEqual([
      'sae.create',
      'sae.deadline',
      'sae.withdraw',
      'sae.create',
    ]);
  });

  it('safety: a lock refuses the submission (423) and writes nothing', async () => {
    const lock = (locked: boolean) =>
      t.call(s.admin, 'PUT', '/api/business/lock', {
        studyId: s.studyId,
        scope: 'record',
        targetId: recordA,
        locked,
        reason: '核查完毕',
      });
    expect((await lock(true)).status).toBe(200);
    const refused = await t.call(s.nurseA.token, 'POST', '/api/business/safety/sae/submit', {
      studyId: s.studyId,
      saeReportId: reportId,
    });
    expect(refused.status).toBe(423);
    const [row] = await t.db.select().from(saeReports).where(eq(saeReports.id, reportId));
    expect(row!.state).toBe('pending');
    expect((await lock(false)).status).toBe(200);
  });

  it('safety: submit marks it submitted (who, when, the record’s values); follow-up makes version 2, pending; versions are kept', async () => {
    const submitted = await t.call(s.nurseA.token, 'POST', '/api/business/safety/sae/submit', {
      studyId: s.studyId,
      saeReportId: reportId,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.msg).toBe('报告已提交');
    expect(contractData(saeReportSchema, submitted)).toMatchObject({
      state: 'submitted',
      // The awareness time moved 2 hours later, so the deadline is 2 hours off still.
      clockState: 'submitted',
      clockText: '已按时提交',
    });
    const [row] = await t.db.select().from(saeReports).where(eq(saeReports.id, reportId));
    expect(row).toMatchObject({ state: 'submitted', submittedBy: s.nurseA.userId });
    expect(new Date(row!.submittedAt!).toISOString()).toBe(t.clock().toISOString());
    expect(row!.content).toMatchObject({ ae_term: '肺炎', ae_serious: '1', ae_criteria: ['hosp'] });
    const twice = await t.call(s.nurseA.token, 'POST', '/api/business/safety/sae/submit', {
      studyId: s.studyId,
      saeReportId: reportId,
    });
    expect(twice.status).toBe(409);

    const followup = await t.call(s.nurseA.token, 'POST', '/api/business/safety/sae/followup', {
      studyId: s.studyId,
      saeReportId: reportId,
    });
    expect(followup.status, JSON.stringify(followup.body)).toBe(200);
    expect(contractData(saeReportSchema, followup)).toMatchObject({
      version: 2,
      kind: 'followup',
      state: 'pending',
      clockText: '剩余 24小时0分',
    });
    const versions = await t.db
      .select()
      .from(saeReports)
      .where(eq(saeReports.crfDataRecordId, recordA))
      .orderBy(asc(saeReports.version));
    expect(versions.map((v) => [v.version, v.state])).toEqual([
      [1, 'submitted'],
      [2, 'pending'],
    ]);
    // Only the newest submitted version has a follow-up.
    const old = await t.call(s.nurseA.token, 'POST', '/api/business/safety/sae/followup', {
      studyId: s.studyId,
      saeReportId: reportId,
    });
    expect(old.status).toBe(409);
    expect((await saeAudits()).map((a) => a.action).slice(-2)).toEqual(['sae.submit', 'sae.followup']);
  });
});

describe('who sees and sends SAE reports', () => {
  it('safety: another site’s member sees none of site A’s reports and cannot submit them (404)', async () => {
    expect((await list(s.nurseB.token)).total).toBe(0);
    const count = await t.call(s.nurseB.token, 'GET', `/api/business/safety/count?studyId=${s.studyId}`);
    expect(count.body.data).toEqual({ pending: 0 });
    const [pending] = await t.db.select().from(saeReports).where(eq(saeReports.state, 'pending'));
    const res = await t.call(s.nurseB.token, 'POST', '/api/business/safety/sae/submit', {
      studyId: s.studyId,
      saeReportId: pending!.id,
    });
    expect(res.status).toBe(404);
    expect((await list(s.monitor.token)).total).toBe(2);
  });

  it('safety: without 安全性报告 the list, count, submit and follow-up are refused (403)', async () => {
    const keys = allStudyPermissionKeys([aeCrfId, ...Object.values(s.crfIds)]).filter(
      (k) => k !== buttonKey('business.safety'),
    );
    const token = await addStudyMember(t, s.admin, s.studyId, '13700000019', { permissions: keys });
    expect((await t.call(token, 'GET', listUrl())).status).toBe(403);
    expect((await t.call(token, 'GET', `/api/business/safety/count?studyId=${s.studyId}`)).status).toBe(403);
    const [pending] = await t.db.select().from(saeReports).where(eq(saeReports.state, 'pending'));
    for (const path of ['submit', 'followup']) {
      const res = await t.call(token, 'POST', `/api/business/safety/sae/${path}`, {
        studyId: s.studyId,
        saeReportId: pending!.id,
      });
      expect(res.status).toBe(403);
    }
  });
});
