import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { allStudyPermissionKeys, buttonKey, crfKey } from '@ecrf/core';
import { codedItems, qualityFindings, saeReports, studyPersonnel, users } from '../../db/schema/index.js';
import {
  enableAe,
  runQuality,
  saveForm,
  saveSeriousAe,
  setUpCoding,
  studyFingerprint,
} from '../../test/gcp-fixture.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { ALL_SITES, openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * Site scope (分中心, docs/multi-centre.md) over issue 37's GCP data: adverse events and SAE reports, data quality
 * findings, field comments and coded items. Two sites, a nurse and a monitor at each (the monitors view every form
 * and hold 数据核查, 安全性报告, 医学编码, 编码审核 and 发起质疑, but not 查看全部中心数据): site B's staff see none of site A's
 * AEs, reports, findings, comments or codes in any list, count, drill-down or push, and every write they try on site
 * A's data is answered 404 with nothing written. Site A's staff see their own, as controls.
 */
let t: TestApp;
let s: TwoSiteStudy;
let aeCrf: number;
let runId: number;
const A = { vitals: 0, history: 0, ae: 0, report: 0, coded: 0, finding: 0 };
const B = { vitals: 0, history: 0, ae: 0, report: 0 };
const staff = { nurseA: '', nurseB: '', monitorA: '', monitorB: '' };
const userIds = { nurseA: 0, nurseB: 0, monitorA: 0, monitorB: 0 };

/** Words only site A's data holds: none may reach site B's staff. */
const MARK = '甲院';

async function siteMember(userName: string, permissions: string[], deptId: number) {
  const token = await addStudyMember(t, s.admin, s.studyId, userName, { permissions });
  const [user] = await t.db.select({ userId: users.userId }).from(users).where(eq(users.userName, userName));
  await t.db.update(users).set({ deptId }).where(eq(users.userId, user!.userId));
  await t.db
    .update(studyPersonnel)
    .set({ deptId })
    .where(and(eq(studyPersonnel.studyId, s.studyId), eq(studyPersonnel.userId, user!.userId)));
  return { token, userId: user!.userId };
}

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  aeCrf = await enableAe(t, s.admin, s.studyId);
  const history = s.crfIds['人口学资料']!;
  await setUpCoding(t, s.admin, s.studyId, history);
  // Made after the AE form exists, so their keys include its view and edit keys.
  const forms = [...Object.values(s.crfIds), aeCrf];
  const nurse = allStudyPermissionKeys(forms).filter((k) => k !== ALL_SITES);
  const monitor = [
    ...forms.map((id) => crfKey(id, 'view')),
    buttonKey('business.quality'),
    buttonKey('business.safety'),
    buttonKey('business.coding'),
    buttonKey('business.coding.approve'),
    buttonKey('study.doubt.open'),
  ];
  for (const [name, userName, keys, site] of [
    ['nurseA', '13710000001', nurse, s.siteA],
    ['nurseB', '13710000002', nurse, s.siteB],
    ['monitorA', '13710000003', monitor, s.siteA],
    ['monitorB', '13710000004', monitor, s.siteB],
  ] as const) {
    const m = await siteMember(userName, keys, site);
    staff[name] = m.token;
    userIds[name] = m.userId;
  }

  const a = s.patientA.subjectRecordId;
  const b = s.patientB.subjectRecordId;
  // 收缩压 left blank at both sites: one 必填项未填写 finding each.
  A.vitals = await saveForm(t, s.admin, { subjectRecordId: a, crfId: s.crfIds['生命体征']!, values: { dbp: '80' } });
  B.vitals = await saveForm(t, s.admin, { subjectRecordId: b, crfId: s.crfIds['生命体征']!, values: { dbp: '81' } });
  A.history = await saveForm(t, s.admin, {
    subjectRecordId: a,
    crfId: history,
    values: { history_note: `${MARK}头晕` },
  });
  B.history = await saveForm(t, s.admin, { subjectRecordId: b, crfId: history, values: { history_note: '乙院头晕' } });
  B.ae = await saveSeriousAe(t, s.admin, b, aeCrf, '乙院肺炎');
  const [reportB] = await t.db.select().from(saeReports).where(eq(saeReports.crfDataRecordId, B.ae));
  B.report = reportB!.id;
  for (const [record, content] of [
    [A.vitals, `${MARK}：来源门诊病历`],
    [B.vitals, '乙院：来源门诊病历'],
  ] as const) {
    const res = await t.call(s.admin, 'POST', '/api/business/crf/comment', {
      studyId: s.studyId,
      crfDataRecordId: record,
      itemName: 'dbp',
      content,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  runId = await runQuality(t, s.admin, s.studyId);
  const [finding] = await t.db
    .select()
    .from(qualityFindings)
    .where(and(eq(qualityFindings.runId, runId), eq(qualityFindings.crfDataRecordId, A.vitals)));
  A.finding = finding!.id;
  const [coded] = await t.db.select().from(codedItems).where(eq(codedItems.crfDataRecordId, A.history));
  A.coded = coded!.id;
  const manual = await t.call(s.admin, 'POST', '/api/business/coding/code', {
    studyId: s.studyId,
    codedItemId: A.coded,
    termCode: '90300001',
  });
  expect(manual.status, JSON.stringify(manual.body)).toBe(200);
});
afterAll(() => t.close());

const get = async (token: string, url: string) => {
  const res = await t.call(token, 'GET', url);
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.data;
};
const q = () => `studyId=${s.studyId}`;
const siteB = () => [staff.nurseB, staff.monitorB];
const siteA = () => [staff.nurseA, staff.monitorA];

describe('site scope over AEs, SAE reports, findings, comments and codes (issue 37 × issue 32)', () => {
  it('a new SAE report at site A is pushed to site A’s 安全性报告 holders only: no notice, count or calendar entry for site B', async () => {
    const pushes = vi.spyOn(t.ctx.realtime, 'toUser');
    A.ae = await saveSeriousAe(t, s.admin, s.patientA.subjectRecordId, aeCrf, `${MARK}肺炎`);
    const [report] = await t.db.select().from(saeReports).where(eq(saeReports.crfDataRecordId, A.ae));
    A.report = report!.id;
    const told = (userId: number) =>
      pushes.mock.calls.filter(([to, event]) => to === userId && (event === 'sae' || event === 'counts'));
    expect(told(userIds.nurseA).length).toBeGreaterThan(0);
    expect(told(userIds.monitorA).length).toBeGreaterThan(0);
    // Nothing at all that names site A's record or patient reaches site B's staff.
    for (const userId of [userIds.nurseB, userIds.monitorB]) {
      const theirs = pushes.mock.calls.filter(([to]) => to === userId);
      expect(theirs.filter(([, event]) => event === 'sae')).toEqual([]);
      expect(JSON.stringify(theirs)).not.toContain(`"subjectRecordId":${s.patientA.subjectRecordId}`);
      expect(JSON.stringify(theirs)).not.toContain(`"crfDataRecordId":${A.ae}`);
    }
    pushes.mockRestore();
    for (const token of siteB()) {
      const events = await get(token, `/api/business/events?${q()}&start=2026-11-01&end=2026-12-31`);
      expect(JSON.stringify(events)).not.toContain(s.patientA.identificationCode);
    }
  });

  it('SAE reports: site B lists and counts (the top bar’s count) only its own; site A and the all-sites monitor see site A’s', async () => {
    for (const token of siteB()) {
      const list = await get(token, `/api/business/safety/saes?${q()}&pageSize=50`);
      expect(list.list.map((r: { saeReportId: number }) => r.saeReportId)).toEqual([B.report]);
      expect(list.total).toBe(1);
      expect(JSON.stringify(list)).not.toContain(MARK);
      expect(JSON.stringify(list)).not.toContain(s.patientA.identificationCode);
      expect(await get(token, `/api/business/safety/count?${q()}`)).toEqual({ pending: 1 });
    }
    for (const token of [...siteA(), s.monitor.token]) {
      const list = await get(token, `/api/business/safety/saes?${q()}&pageSize=50`);
      expect(list.list.map((r: { saeReportId: number }) => r.saeReportId)).toContain(A.report);
    }
    expect(await get(staff.nurseA, `/api/business/safety/count?${q()}`)).toEqual({ pending: 1 });
    expect(await get(s.monitor.token, `/api/business/safety/count?${q()}`)).toEqual({ pending: 2 });
  });

  it('AE records: site B reads none of site A’s (404) and its AE list holds only its own patient', async () => {
    for (const token of siteB()) {
      const one = await t.call(
        token,
        'GET',
        `/api/business/crf/data/list/${s.patientA.subjectRecordId}?crfId=${aeCrf}`,
      );
      expect(one.status).toBe(404);
      const own = await t.call(
        token,
        'GET',
        `/api/business/crf/data/list/${s.patientB.subjectRecordId}?crfId=${aeCrf}`,
      );
      expect(own.status, JSON.stringify(own.body)).toBe(200);
      expect(JSON.stringify(own.body)).toContain('乙院肺炎');
    }
    const mine = await t.call(
      staff.nurseA,
      'GET',
      `/api/business/crf/data/list/${s.patientA.subjectRecordId}?crfId=${aeCrf}`,
    );
    expect(JSON.stringify(mine.body)).toContain(`${MARK}肺炎`);
  });

  it('quality findings: site B’s list, drill-down, run counts and dashboard hold only site B’s patient', async () => {
    const all = await get(s.admin, `/api/business/quality/findings?${q()}&runId=${runId}&pageSize=100`);
    const ownCount = all.list.filter(
      (f: { subjectRecordId: number }) => f.subjectRecordId !== s.patientA.subjectRecordId,
    ).length;
    expect(all.list.some((f: { findingId: number }) => f.findingId === A.finding)).toBe(true);
    for (const token of siteB()) {
      const list = await get(token, `/api/business/quality/findings?${q()}&runId=${runId}&pageSize=100`);
      expect(list.list.map((f: { subjectRecordId: number }) => f.subjectRecordId)).not.toContain(
        s.patientA.subjectRecordId,
      );
      expect(list.total).toBe(list.list.length);
      expect(JSON.stringify(list)).not.toContain(s.patientA.identificationCode);
      const drill = await get(
        token,
        `/api/business/quality/findings?${q()}&runId=${runId}&ruleKey=required&pageSize=100`,
      );
      expect(drill.list.map((f: { crfDataRecordId: number }) => f.crfDataRecordId)).toContain(B.vitals);
      expect(
        drill.list.every((f: { subjectRecordId: number }) => f.subjectRecordId === s.patientB.subjectRecordId),
      ).toBe(true);
      const run = await get(token, `/api/business/quality/run?${q()}&runId=${runId}`);
      expect(run.findingsCount).toBe(list.total);
      const runs = await get(token, `/api/business/quality/runs?${q()}`);
      expect(runs.list.find((r: { runId: number }) => r.runId === runId).findingsCount).toBe(list.total);
      const dashboard = await get(token, `/api/business/quality/dashboard?${q()}`);
      const ofRun = dashboard.runs.find((r: { runId: number }) => r.runId === runId);
      expect(ofRun.bySite.map((x: { siteName: string }) => x.siteName)).toEqual(['乙中心']);
      expect(ofRun.open).toBe(list.total);
    }
    // Site A sees its own finding; the all-sites monitor counts both sites.
    const mine = await get(staff.monitorA, `/api/business/quality/findings?${q()}&runId=${runId}&pageSize=100`);
    expect(mine.list.map((f: { findingId: number }) => f.findingId)).toContain(A.finding);
    const whole = await get(s.monitor.token, `/api/business/quality/dashboard?${q()}`);
    const sites = whole.runs.find((r: { runId: number }) => r.runId === runId).bySite;
    expect(sites.map((x: { siteName: string }) => x.siteName).sort()).toEqual(['乙中心', '甲中心'].sort());
    expect(ownCount).toBeGreaterThan(0);
  });

  it('comments: site B reads none of site A’s record’s comments (404) and its own record’s only', async () => {
    for (const token of siteB()) {
      const theirs = await t.call(token, 'GET', `/api/business/crf/comments?${q()}&crfDataRecordId=${A.vitals}`);
      expect(theirs.status).toBe(404);
      expect(JSON.stringify(theirs.body)).not.toContain(MARK);
      const own = await get(token, `/api/business/crf/comments?${q()}&crfDataRecordId=${B.vitals}`);
      expect(JSON.stringify(own)).toContain('乙院：来源门诊病历');
      expect(JSON.stringify(own)).not.toContain(MARK);
    }
    const mine = await get(staff.monitorA, `/api/business/crf/comments?${q()}&crfDataRecordId=${A.vitals}`);
    expect(JSON.stringify(mine)).toContain(`${MARK}：来源门诊病历`);
  });

  it('coded items: site B’s coding list holds only its own verbatims and codes', async () => {
    for (const token of siteB()) {
      const list = await get(token, `/api/business/coding/items?${q()}&pageSize=50`);
      expect(list.list.map((r: { crfDataRecordId: number }) => r.crfDataRecordId)).toEqual([B.history]);
      expect(JSON.stringify(list)).not.toContain(MARK);
      const uncoded = await get(token, `/api/business/coding/items?${q()}&state=manual&pageSize=50`);
      expect(uncoded.total).toBe(0);
    }
    const mine = await get(staff.monitorA, `/api/business/coding/items?${q()}&pageSize=50`);
    expect(mine.list.map((r: { id: number }) => r.id)).toEqual([A.coded]);
  });

  it('writes on site A’s data from site B are answered 404 and write nothing', async () => {
    const writes: Array<[string, string, string, object]> = [
      [
        'comment',
        'POST',
        '/api/business/crf/comment',
        { studyId: s.studyId, crfDataRecordId: A.vitals, itemName: 'dbp', content: '乙院批注' },
      ],
      [
        'AE save',
        'PUT',
        '/api/v3/business/crf',
        {
          subjectRecordId: s.patientA.subjectRecordId,
          crfId: aeCrf,
          crfDataRecordId: A.ae,
          version: 1,
          values: { ae_term: '改' },
        },
      ],
      [
        'missing-code mark',
        'PUT',
        '/api/v3/business/crf',
        {
          subjectRecordId: s.patientA.subjectRecordId,
          crfId: s.crfIds['生命体征']!,
          crfDataRecordId: A.vitals,
          version: 1,
          values: { dbp: '80' },
          missing: { sbp: 'ND' },
        },
      ],
      ['SAE submit', 'POST', '/api/business/safety/sae/submit', { studyId: s.studyId, saeReportId: A.report }],
      [
        'manual code',
        'POST',
        '/api/business/coding/code',
        { studyId: s.studyId, codedItemId: A.coded, termCode: '90300002' },
      ],
      ['approve code', 'POST', '/api/business/coding/approve', { studyId: s.studyId, codedItemIds: [A.coded] }],
    ];
    for (const token of siteB()) {
      for (const [name, method, url, body] of writes) {
        const before = await studyFingerprint(t, s.studyId);
        const res = await t.call(token, method, url, body);
        expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(404);
        expect(await studyFingerprint(t, s.studyId), name).toEqual(before);
      }
      // A batch of queries naming site A's finding raises nothing: that finding is not in site B's run.
      const before = await studyFingerprint(t, s.studyId);
      const raised = await t.call(token, 'POST', '/api/business/quality/queries', {
        studyId: s.studyId,
        runId,
        findingIds: [A.finding],
      });
      expect(raised.status, JSON.stringify(raised.body)).toBe(200);
      expect(raised.body.data.raised).toBe(0);
      expect(raised.body.data.refused.map((r: { findingId: number }) => r.findingId)).toEqual([A.finding]);
      expect(await studyFingerprint(t, s.studyId)).toEqual(before);
    }
    // A follow-up needs a submitted report: site A submits it, site B still cannot follow it up.
    const submitted = await t.call(staff.nurseA, 'POST', '/api/business/safety/sae/submit', {
      studyId: s.studyId,
      saeReportId: A.report,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    for (const token of siteB()) {
      const before = await studyFingerprint(t, s.studyId);
      const res = await t.call(token, 'POST', '/api/business/safety/sae/followup', {
        studyId: s.studyId,
        saeReportId: A.report,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(await studyFingerprint(t, s.studyId)).toEqual(before);
    }
    const followup = await t.call(staff.monitorA, 'POST', '/api/business/safety/sae/followup', {
      studyId: s.studyId,
      saeReportId: A.report,
    });
    expect(followup.status, JSON.stringify(followup.body)).toBe(200);
  });
});
