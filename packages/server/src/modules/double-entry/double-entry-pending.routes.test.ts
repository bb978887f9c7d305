import { and, eq } from 'drizzle-orm';
import {
  allStudyPermissionKeys,
  buttonKey,
  doubleEntryCompareSchema,
  doubleEntryPairListSchema,
  MSG,
  myDoubleEntrySchema,
  type DoubleEntryPair,
} from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, crfDataRecords, doubleEntries } from '../../db/schema/index.js';
import { contractData } from '../../test/contract.js';
import { enrolDemoPatient } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * 双份录入 (issue 37): the reconciler's list of the study's pairs (statuses, paging, 双录入核对 required, site
 * scope) and 缺失原因 marks in the entries (stored with the entry, compared as values, reconciled through the one
 * write path with its checks). PGlite, or PostgreSQL when TEST_DATABASE_URL is set.
 */
let t: TestApp;
let s: TwoSiteStudy;
let vitalsId: number;
let labsId: number;
let second: string;
let noKey: string;

const PENDING = '/api/business/double-entry/pending';
const ENTRY = '/api/business/double-entry/entry';
const RECONCILE = '/api/business/double-entry/reconcile';
const at = (subjectRecordId: number, crfId: number) => ({ studyId: s.studyId, subjectRecordId, crfId });
type At = ReturnType<typeof at>;
const save = (token: string, i: At, values: Record<string, unknown>, missing?: Record<string, string>) =>
  t.call(token, 'PUT', ENTRY, { ...i, values, ...(missing ? { missing } : {}) });
const done = (token: string, i: At) => t.call(token, 'POST', '/api/business/double-entry/done', i);
const list = async (token: string, q = '') =>
  contractData(doubleEntryPairListSchema, await t.call(token, 'GET', `${PENDING}?studyId=${s.studyId}${q}`));
const key = (p: DoubleEntryPair) => `${p.subjectRecordId}/${p.crfId}`;

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  vitalsId = s.crfIds['生命体征']!;
  labsId = s.crfIds['实验室检查']!;
  const every = allStudyPermissionKeys(Object.values(s.crfIds));
  second = await addStudyMember(t, s.admin, s.studyId, '13700000011', { permissions: every });
  const reconcileKey = buttonKey('business.doubleEntry.reconcile');
  noKey = await addStudyMember(t, s.admin, s.studyId, '13700000012', {
    permissions: every.filter((k) => k !== reconcileKey),
  });
  for (const crfId of [vitalsId, labsId]) {
    const res = await t.call(s.admin, 'PUT', '/api/business/study/crf/double_entry', {
      studyId: s.studyId,
      crfId,
      doubleEntry: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const a = s.patientA.subjectRecordId;
  const b = s.patientB.subjectRecordId;
  // 已核对: patient A's vitals, both entries alike, reconciled with nothing to decide.
  const vitals = { sbp: '120', dbp: '80', hr: '72' };
  await save(s.nurseA.token, at(a, vitalsId), vitals);
  await save(s.monitor.token, at(a, vitalsId), vitals);
  await done(s.nurseA.token, at(a, vitalsId));
  await done(s.monitor.token, at(a, vitalsId));
  const reconciled = await t.call(s.admin, 'POST', RECONCILE, { ...at(a, vitalsId), decisions: {} });
  expect(reconciled.status, JSON.stringify(reconciled.body)).toBe(200);
  // 第一次录入中: patient A's labs, entry 1 a draft.
  await save(s.nurseA.token, at(a, labsId), {});
  // 第二次录入中: patient B's vitals, entry 1 done, entry 2 a draft.
  await save(s.nurseB.token, at(b, vitalsId), vitals);
  await done(s.nurseB.token, at(b, vitalsId));
  await save(s.monitor.token, at(b, vitalsId), vitals);
  // 待核对: patient B's labs, both done.
  await save(s.nurseB.token, at(b, labsId), {});
  await done(s.nurseB.token, at(b, labsId));
  await save(s.monitor.token, at(b, labsId), {});
  await done(s.monitor.token, at(b, labsId));
});
afterAll(() => t.close());

describe('issue 37 双份录入 list for the reconciler', () => {
  it('lists every pair of the study with its status, entries and form, newest change first', async () => {
    const res = await list(s.admin);
    expect(res.total).toBe(4);
    const byKey = Object.fromEntries(res.list.map((p) => [key(p), p]));
    const a = s.patientA.subjectRecordId;
    const b = s.patientB.subjectRecordId;
    expect(byKey[`${a}/${vitalsId}`]).toMatchObject({ status: 'reconciled', crfTitle: '生命体征', siteName: '甲中心' });
    expect(byKey[`${a}/${vitalsId}`]!.crfDataRecordId).toEqual(expect.any(Number));
    expect(byKey[`${a}/${labsId}`]).toMatchObject({
      status: 'entry1',
      entry1: { state: 'draft' },
      entry2: null,
      crfDataRecordId: null,
    });
    expect(byKey[`${b}/${vitalsId}`]).toMatchObject({
      status: 'entry2',
      entry1: { state: 'done', userId: s.nurseB.userId },
      entry2: { state: 'draft', userId: s.monitor.userId },
      siteName: '乙中心',
      identificationCode: s.patientB.identificationCode,
    });
    expect(byKey[`${b}/${labsId}`]).toMatchObject({
      status: 'pending',
      entry1: { state: 'done' },
      entry2: { state: 'done' },
    });
    const times = res.list.map((p) => p.updateDate);
    expect([...times].sort().reverse()).toEqual(times);
    // The entries' values never reach the list.
    expect(JSON.stringify(res)).not.toContain('"120"');
  });

  it('filters by status and by site', async () => {
    const pending = await list(s.admin, '&status=pending');
    expect(pending.total).toBe(1);
    expect(pending.list[0]).toMatchObject({ subjectRecordId: s.patientB.subjectRecordId, crfId: labsId });
    expect((await list(s.admin, '&status=reconciled')).list.map(key)).toEqual([
      `${s.patientA.subjectRecordId}/${vitalsId}`,
    ]);
    const siteB = await list(s.admin, `&deptId=${s.siteB}`);
    expect(siteB.total).toBe(2);
    expect(siteB.list.every((p) => p.deptId === s.siteB)).toBe(true);
    const bad = await t.call(s.admin, 'GET', `${PENDING}?studyId=${s.studyId}&status=done`);
    expect(bad.status).toBe(400);
  });

  it('pages as the other lists do: { list, total }, pageNum and pageSize', async () => {
    const all = (await list(s.admin)).list.map(key);
    const one = await list(s.admin, '&pageNum=1&pageSize=3');
    const two = await list(s.admin, '&pageNum=2&pageSize=3');
    expect(one.total).toBe(4);
    expect(two.total).toBe(4);
    expect(one.list).toHaveLength(3);
    expect(two.list).toHaveLength(1);
    expect([...one.list, ...two.list].map(key)).toEqual(all);
    expect((await list(s.admin, '&pageNum=3&pageSize=3')).list).toEqual([]);
  });

  it('needs 双录入核对: a member without it is refused 403', async () => {
    const res = await t.call(noKey, 'GET', `${PENDING}?studyId=${s.studyId}`);
    expect(res.status).toBe(403);
    expect(res.body.msg).toBe(MSG.forbidden);
  });

  it('site scope: a site-scoped member sees only their own site’s patients', async () => {
    const a = await list(s.nurseA.token);
    expect(a.total).toBe(2);
    expect(a.list.every((p) => p.subjectRecordId === s.patientA.subjectRecordId)).toBe(true);
    const b = await list(s.nurseB.token);
    expect(b.total).toBe(2);
    expect(b.list.every((p) => p.subjectRecordId === s.patientB.subjectRecordId)).toBe(true);
    // Another site named in the filter shows nothing outside the caller's scope.
    expect((await list(s.nurseA.token, `&deptId=${s.siteB}`)).total).toBe(0);
    expect(JSON.stringify(a)).not.toContain('乙院患者');
  });
});

describe('issue 37 双份录入 缺失原因 marks in the entries', () => {
  let c: At;

  beforeAll(async () => {
    const patient = await enrolDemoPatient(t, s.admin, s.studyId, { subjectName: '丙院患者' });
    c = at(patient.subjectRecordId, vitalsId);
  });

  it('the entry save refuses a code that is not the study’s and an item the form does not have', async () => {
    const code = await save(s.monitor.token, c, {}, { hr: 'XX' });
    expect(code.status).toBe(400);
    expect(code.body.msg).toBe('缺失原因代码无效：XX');
    const item = await save(s.monitor.token, c, {}, { nope: 'ND' });
    expect(item.status).toBe(400);
    expect(item.body.msg).toBe('题目不能标记缺失原因：nope');
    expect(
      await t.db.select().from(doubleEntries).where(eq(doubleEntries.subjectRecordId, c.subjectRecordId)),
    ).toHaveLength(0);
  });

  it('the entry save stores the marks with the entry, audited as marks', async () => {
    const one = await save(s.monitor.token, c, { sbp: '120', dbp: '80' }, { hr: 'ND', temp: 'UNK' });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    const two = await save(second, c, { sbp: '120', dbp: '80', hr: '72' }, { temp: 'UNK' });
    expect(two.status, JSON.stringify(two.body)).toBe(200);
    const q = `studyId=${c.studyId}&subjectRecordId=${c.subjectRecordId}&crfId=${c.crfId}`;
    const mine = contractData(myDoubleEntrySchema, await t.call(s.monitor.token, 'GET', `${ENTRY}?${q}`));
    expect(mine.entry!.missing).toEqual({ hr: 'ND', temp: 'UNK' });
    // Saving values alone keeps the marks.
    await save(s.monitor.token, c, { sbp: '120', dbp: '80' });
    const [row] = await t.db
      .select()
      .from(doubleEntries)
      .where(and(eq(doubleEntries.subjectRecordId, c.subjectRecordId), eq(doubleEntries.entryNo, 1)));
    expect(row!.missing).toEqual({ hr: 'ND', temp: 'UNK' });
    const audited = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectRecordId, c.subjectRecordId), eq(auditEvents.action, 'double_entry.save')));
    expect(audited.find((r) => r.itemName === 'hr' && r.reason === '第一次录入')?.newValue).toEqual({ missing: 'ND' });
  });

  it('compare reads a mark as a value: a mark against a number differs, the same mark on both sides agrees', async () => {
    await done(s.monitor.token, c);
    await done(second, c);
    const q = `studyId=${c.studyId}&subjectRecordId=${c.subjectRecordId}&crfId=${c.crfId}`;
    const res = contractData(
      doubleEntryCompareSchema,
      await t.call(s.admin, 'GET', `/api/business/double-entry/compare?${q}`),
    );
    expect(res.differences).toEqual([{ itemName: 'hr', entry1: null, entry2: '72', missing1: 'ND', missing2: null }]);
  });

  it('reconcile writes the chosen mark through the one write path, whose checks still hold', async () => {
    // A code that is not one of the study's is refused by the write path; the entries stay open.
    const refused = await t.call(s.admin, 'POST', RECONCILE, { ...c, decisions: { hr: { missing: 'XX' } } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('缺失原因代码无效');
    const res = await t.call(s.admin, 'POST', RECONCILE, { ...c, decisions: { hr: 'entry1' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [record] = await t.db
      .select()
      .from(crfDataRecords)
      .where(eq(crfDataRecords.id, res.body.data.crfDataRecordId as number));
    expect(record!.missing).toEqual({ hr: 'ND', temp: 'UNK' });
    expect(record!.values).not.toHaveProperty('hr');
    expect(record!.values).toMatchObject({ sbp: '120', dbp: '80' });
    const listed = await list(s.admin, '&status=reconciled');
    expect(listed.list.map(key)).toContain(`${c.subjectRecordId}/${vitalsId}`);
  });
});
