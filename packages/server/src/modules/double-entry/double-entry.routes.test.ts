import { and, asc, eq, inArray } from 'drizzle-orm';
import { allStudyPermissionKeys, DOUBLE_ENTRY_MSG, doubleEntryCompareSchema, myDoubleEntrySchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, crfDataRecords, crfs, doubleEntries } from '../../db/schema/index.js';
import { contractData } from '../../test/contract.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * 双份录入 (issue 37) through the HTTP API: a form set to double entry takes two blind entries by two different
 * users, compared and reconciled by a third into the form record through the one write path; every step audited;
 * the form page's own save refused; a lock refuses entries; site scope holds. PGlite, or PostgreSQL when
 * TEST_DATABASE_URL is set.
 */
let t: TestApp;
let s: TwoSiteStudy;
let vitalsId: number;
let third: string;

const CONFIG = '/api/business/study/crf/double_entry';
const ENTRY = '/api/business/double-entry/entry';
const instance = () => ({ studyId: s.studyId, subjectRecordId: s.patientA.subjectRecordId, crfId: vitalsId });
const query = () => `studyId=${s.studyId}&subjectRecordId=${s.patientA.subjectRecordId}&crfId=${vitalsId}`;
const save = (token: string, values: Record<string, unknown>) => t.call(token, 'PUT', ENTRY, { ...instance(), values });
const mine = async (token: string) =>
  contractData(myDoubleEntrySchema, await t.call(token, 'GET', `${ENTRY}?${query()}`));
const actions = async (...names: string[]) =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.studyId, s.studyId), inArray(auditEvents.action, names)))
    .orderBy(asc(auditEvents.id));

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  vitalsId = s.crfIds['生命体征']!;
  third = await addStudyMember(t, s.admin, s.studyId, '13700000009', {
    permissions: allStudyPermissionKeys(Object.values(s.crfIds)),
  });
});
afterAll(() => t.close());

describe('issue 37 双份录入', () => {
  it('CRF management sets a form to double entry (audited); a study nurse may not', async () => {
    const refused = await t.call(s.nurseA.token, 'PUT', CONFIG, {
      studyId: s.studyId,
      crfId: vitalsId,
      doubleEntry: true,
    });
    expect(refused.status).toBe(403);
    const res = await t.call(s.admin, 'PUT', CONFIG, { studyId: s.studyId, crfId: vitalsId, doubleEntry: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [crf] = await t.db.select().from(crfs).where(eq(crfs.id, vitalsId));
    expect(crf!.doubleEntry).toBe(true);
    const listed = await t.call(s.nurseA.token, 'GET', `${CONFIG}?studyId=${s.studyId}`);
    expect(listed.body.data).toEqual([vitalsId]);
    const [row] = await actions('study.crf.double_entry');
    expect(row).toMatchObject({ crfId: vitalsId, newValue: true });
  });

  it('the form page save is refused on a double-entry form, with a Chinese message', async () => {
    const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: s.patientA.subjectRecordId,
      crfId: vitalsId,
      version: 0,
      values: { sbp: '120' },
    });
    expect(res.status).toBe(409);
    expect(res.body.msg).toBe(DOUBLE_ENTRY_MSG.directSaveRefused);
  });

  it('the first user to start is entry 1, another user entry 2, a third user none; each sees only their own', async () => {
    expect((await mine(s.nurseA.token)).nextEntryNo).toBe(1);
    const one = await save(s.nurseA.token, { sbp: '120', dbp: '80', hr: '72' });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.data).toMatchObject({ entryNo: 1, state: 'draft' });
    const two = await save(s.monitor.token, { sbp: '120.0', dbp: '85', hr: '70' });
    expect(two.body.data).toMatchObject({ entryNo: 2 });
    const taken = await save(third, { sbp: '1' });
    expect(taken.status).toBe(409);
    expect(taken.body.msg).toBe(DOUBLE_ENTRY_MSG.bothEntriesTaken);

    const a = await mine(s.nurseA.token);
    expect(a.entry).toMatchObject({ entryNo: 1, values: { sbp: '120', dbp: '80', hr: '72' } });
    expect(a.pair.map((p) => p.entryNo)).toEqual([1, 2]);
    // Blind: nothing of entry 2's values reaches entry 1's user, and the other way round.
    expect(JSON.stringify(a)).not.toContain('85');
    expect(JSON.stringify(await mine(s.monitor.token))).not.toContain('"72"');
    expect((await mine(third)).entry).toBeNull();
    // An entering user is no reconciler.
    expect(a.mayReconcile).toBe(false);
    expect((await mine(s.admin)).mayReconcile).toBe(true);
  });

  it('each entry save is an audit row per changed item naming the entry; done is a step of its own', async () => {
    await save(s.nurseA.token, { sbp: '120', dbp: '80', hr: '71' });
    const rows = await actions('double_entry.save');
    const firstEntry = rows.filter((r) => r.reason === '第一次录入').map((r) => r.itemName);
    expect(firstEntry.sort()).toEqual(['dbp', 'hr', 'hr', 'sbp']);
    // The trail keeps values as the audit writer does (a number typed as text is kept as its number).
    expect(rows.at(-1)).toMatchObject({ itemName: 'hr', oldValue: 72, newValue: 71 });

    const early = await t.call(s.admin, 'GET', `/api/business/double-entry/compare?${query()}`);
    expect(early.status).toBe(409);
    expect(early.body.msg).toBe(DOUBLE_ENTRY_MSG.notBothDone);
    for (const token of [s.nurseA.token, s.monitor.token]) {
      const done = await t.call(token, 'POST', '/api/business/double-entry/done', instance());
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.data.state).toBe('done');
    }
    expect((await save(s.nurseA.token, { sbp: '1' })).body.msg).toBe(DOUBLE_ENTRY_MSG.entryDone);
    expect(await actions('double_entry.done')).toHaveLength(2);
  });

  it('the reconciler (双录入核对, neither entering user) sees both entries and the differences', async () => {
    const enterer = await t.call(s.nurseA.token, 'GET', `/api/business/double-entry/compare?${query()}`);
    expect(enterer.status).toBe(403);
    expect(enterer.body.msg).toBe(DOUBLE_ENTRY_MSG.reconcilerIsEnterer);
    const res = contractData(
      doubleEntryCompareSchema,
      await t.call(s.admin, 'GET', `/api/business/double-entry/compare?${query()}`),
    );
    expect(res.entry1.values).toMatchObject({ hr: '71' });
    expect(res.entry2.values).toMatchObject({ hr: '70' });
    // "120" and "120.0" are the same number typed: no difference.
    expect(res.differences.map((d) => d.itemName)).toEqual(['dbp', 'hr']);
  });

  it('reconcile needs a decision per difference, then writes the record through the one write path, audited', async () => {
    const url = '/api/business/double-entry/reconcile';
    const undecided = await t.call(s.admin, 'POST', url, { ...instance(), decisions: { dbp: 'entry1' } });
    expect(undecided.status).toBe(400);
    expect(undecided.body.msg).toBe(DOUBLE_ENTRY_MSG.undecided);
    const res = await t.call(s.admin, 'POST', url, {
      ...instance(),
      decisions: { dbp: 'entry2', hr: { value: '73' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const recordId = res.body.data.crfDataRecordId as number;
    const [record] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, recordId));
    expect(record!.values).toMatchObject({ sbp: '120', dbp: '85', hr: '73' });

    // The one write path's own rows: the record created and each item saved, with the reconcile as reason.
    const written = await actions('crf.create', 'item.update');
    const mineRows = written.filter((r) => r.crfDataRecordId === recordId);
    expect(mineRows.map((r) => r.action)).toContain('crf.create');
    expect(mineRows.filter((r) => r.action === 'item.update').every((r) => r.reason === '双份录入核对')).toBe(true);
    const decisions = await actions('double_entry.decision');
    const decided = Object.fromEntries(decisions.map((r) => [r.itemName, r]));
    // Both sides and the choice; a number typed as text may be kept as its number by the audit writer.
    expect(decided.dbp!.newValue).toBe('entry2');
    expect(JSON.stringify(decided.dbp!.oldValue)).toMatch(/^\{"entry1":"?80"?,"entry2":"?85"?\}$/);
    expect(JSON.stringify(decided.hr!.newValue)).toMatch(/^\{"value":"?73"?\}$/);
    expect(decisions).toHaveLength(2);
    expect(await actions('double_entry.reconcile')).toHaveLength(1);

    const entries = await t.db.select().from(doubleEntries).where(eq(doubleEntries.crfId, vitalsId));
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(e.reconciledAt).not.toBeNull();
      expect(e.crfDataRecordId).toBe(recordId);
      expect(e.decisions).toMatchObject({ dbp: { chosen: 'entry2' }, hr: { chosen: { value: '73' } } });
    }
  });

  it('site scope holds: the other site’s nurse is answered 404 and writes nothing', async () => {
    const before = await t.db.select().from(doubleEntries);
    expect((await t.call(s.nurseB.token, 'GET', `${ENTRY}?${query()}`)).status).toBe(404);
    expect((await save(s.nurseB.token, { sbp: '1' })).status).toBe(404);
    expect(await t.db.select().from(doubleEntries)).toHaveLength(before.length);
  });

  it('locked data takes no entry (423)', async () => {
    const lock = await t.call(s.admin, 'PUT', '/api/business/lock', {
      studyId: s.studyId,
      scope: 'subject',
      targetId: s.patientA.subjectRecordId,
      locked: true,
      reason: '核查完毕',
    });
    expect(lock.status, JSON.stringify(lock.body)).toBe(200);
    const res = await save(s.nurseA.token, { sbp: '1' });
    expect(res.status).toBe(423);
    expect(await t.db.select().from(doubleEntries).where(eq(doubleEntries.crfId, vitalsId))).toHaveLength(2);
  });
});
