import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MISSING_CODES } from '@ecrf/core';
import { auditEvents, crfDataRecords, signatures } from '../../db/schema/index.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';
import { enrolDemoPatient } from '../../test/demo.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/** 缺失原因 (issue 37): marks saved through the one write path, audited like values, and the study's codes. */

let t: TestApp;
let s: TwoSiteStudy;
let vitals: number;

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  vitals = s.crfIds['生命体征']!;
});
afterAll(() => t.close());

const save = (body: object, token = s.admin) =>
  t.call(token, 'PUT', '/api/v3/business/crf', { crfId: vitals, ...body });
const patient = async (name: string) =>
  (await enrolDemoPatient(t, s.admin, s.studyId, { subjectName: name })).subjectRecordId;
const recordRow = async (id: number) => (await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, id)))[0]!;
const itemAudits = (id: number) =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.crfDataRecordId, id), eq(auditEvents.action, 'item.update')))
    .orderBy(asc(auditEvents.id));

describe('saving a form with missing-data codes', () => {
  it('a required item marked ND submits complete; stored, read back and audited as [缺失:ND]', async () => {
    const subjectRecordId = await patient('缺失一');
    const unmarked = await save({ subjectRecordId, version: 0, values: { dbp: '80' }, submit: true });
    expect(unmarked.status).toBe(400);

    const res = await save({
      subjectRecordId,
      version: 0,
      values: { dbp: '80' },
      missing: { sbp: 'ND' },
      submit: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.changedItems).toEqual(expect.arrayContaining(['sbp', 'dbp']));
    const row = await recordRow(res.body.data.crfDataRecordId);
    expect(row.missing).toEqual({ sbp: 'ND' });
    expect(row.values).not.toHaveProperty('sbp');

    const read = await t.call(s.admin, 'GET', `/api/v3/business/crf/${subjectRecordId}?crfId=${vitals}`);
    expect(read.status).toBe(200);
    expect(read.body.data.crfDataRecord.missing).toEqual({ sbp: 'ND' });

    const sbp = (await itemAudits(row.id)).find((a) => a.itemName === 'sbp');
    expect(sbp).toMatchObject({ oldValue: null, newValue: '[缺失:ND]' });
  });

  it('refuses a value beside a mark, naming the item, and a code the study lacks; nothing is written', async () => {
    const subjectRecordId = await patient('缺失二');
    const both = await save({ subjectRecordId, version: 0, values: { sbp: '120', dbp: '80' }, missing: { sbp: 'ND' } });
    expect(both.status).toBe(400);
    expect(both.body.msg).toBe('「收缩压」已标记缺失原因，不能同时填写数值');
    expect(both.body.data.errors).toEqual([expect.objectContaining({ itemName: 'sbp' })]);
    const unknown = await save({ subjectRecordId, version: 0, values: { dbp: '80' }, missing: { sbp: 'XX' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toBe('缺失原因代码无效：XX');
    const rows = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.subjectRecordId, subjectRecordId));
    expect(rows.filter((r) => r.crfId === vitals)).toEqual([]);
  });

  it('a changed or cleared mark is a change: reason needed, audited old → new, SDV cleared, signature voided', async () => {
    const subjectRecordId = await patient('缺失三');
    const first = await save({
      subjectRecordId,
      version: 0,
      values: { dbp: '80', hr: '70' },
      missing: { sbp: 'ND' },
      submit: true,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const { crfDataRecordId } = first.body.data;
    const sdv = await t.call(s.admin, 'PUT', '/api/business/crf/sdv', {
      crfDataRecordId,
      itemNames: ['sbp', 'hr'],
      verified: true,
    });
    expect(sdv.status, JSON.stringify(sdv.body)).toBe(200);
    const signed = await t.call(s.admin, 'PUT', '/api/v1/business/subject/sign', {
      subjectRecordId,
      password: TEST_ADMIN_PASSWORD,
    });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);

    const body = { subjectRecordId, crfDataRecordId, values: { dbp: '80', hr: '70' }, missing: { sbp: 'UNK' } };
    const noReason = await save({ ...body, version: first.body.data.version });
    expect(noReason.status).toBe(400);
    expect(noReason.body.msg).toBe('修改已提交的数据需要填写修改原因');
    const changed = await save({ ...body, version: first.body.data.version, reason: '复核后改为未知' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data.changedItems).toEqual(['sbp']);
    const row = await recordRow(crfDataRecordId);
    expect(Object.keys(row.sdv)).toEqual(['hr']);
    const [signature] = await t.db.select().from(signatures).where(eq(signatures.subjectRecordId, subjectRecordId));
    expect(signature!.invalidatedAt).not.toBeNull();
    expect(signature!.invalidatedReason).toBe('表单“生命体征”的数据在签名后被修改');

    // A writer that sends no marks leaves them; then the mark cleared for a value.
    const keeps = await save({
      ...body,
      missing: undefined,
      version: changed.body.data.version,
      values: { dbp: '80', hr: '72' },
      reason: '改',
    });
    expect(keeps.status, JSON.stringify(keeps.body)).toBe(200);
    expect((await recordRow(crfDataRecordId)).missing).toEqual({ sbp: 'UNK' });
    const cleared = await save({
      ...body,
      version: keeps.body.data.version,
      values: { sbp: '120', dbp: '80', hr: '72' },
      missing: {},
      reason: '补测',
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect((await recordRow(crfDataRecordId)).missing).toEqual({});

    const trail = (await itemAudits(crfDataRecordId)).filter((a) => a.itemName === 'sbp');
    expect(trail.map((a) => [a.oldValue, a.newValue, a.reason])).toEqual([
      [null, '[缺失:ND]', null],
      ['[缺失:ND]', '[缺失:UNK]', '复核后改为未知'],
      ['[缺失:UNK]', 120, '补测'],
    ]);
    const sdvClears = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.crfDataRecordId, crfDataRecordId), eq(auditEvents.action, 'sdv.clear')));
    expect(sdvClears.map((a) => a.itemName)).toContain('sbp');
  });

  it('a locked casebook takes no mark (423), and another site’s nurse cannot mark (404)', async () => {
    const subjectRecordId = await patient('缺失四');
    const lock = (locked: boolean) =>
      t.call(s.admin, 'PUT', '/api/business/lock', {
        studyId: s.studyId,
        scope: 'subject',
        targetId: subjectRecordId,
        locked,
        reason: '核查完成',
      });
    expect((await lock(true)).status).toBe(200);
    const locked = await save({ subjectRecordId, version: 0, values: { dbp: '80' }, missing: { sbp: 'ND' } });
    expect(locked.status).toBe(423);
    expect((await lock(false)).status).toBe(200);

    const other = await save(
      { subjectRecordId: s.patientA.subjectRecordId, version: 0, values: { dbp: '80' }, missing: { sbp: 'ND' } },
      s.nurseB.token,
    );
    expect(other.status).toBe(404);
    const rows = await t.db
      .select()
      .from(crfDataRecords)
      .where(eq(crfDataRecords.subjectRecordId, s.patientA.subjectRecordId));
    expect(rows.filter((r) => r.crfId === vitals)).toEqual([]);
  });
});

describe('the study’s missing-data codes', () => {
  const url = () => `/api/business/study/missing_codes?studyId=${s.studyId}`;
  const put = (codes: unknown, token = s.admin) =>
    t.call(token, 'PUT', '/api/business/study/missing_codes', { studyId: s.studyId, codes });

  it('start with ND, NA, UNK, ASKU; a member reads them; only study:config sets them', async () => {
    const read = await t.call(s.nurseA.token, 'GET', url());
    expect(read.status).toBe(200);
    expect(read.body.data.codes).toEqual(DEFAULT_MISSING_CODES);
    expect((await put(DEFAULT_MISSING_CODES, s.nurseA.token)).status).toBe(403);
  });

  it('check the codes, audit the change, and refuse removing a code that records use, naming the count', async () => {
    expect((await put([{ code: 'nd', label: '未查' }])).status).toBe(400);
    expect(
      (
        await put([
          { code: 'ND', label: '未查' },
          { code: 'ND', label: '未做' },
        ])
      ).status,
    ).toBe(400);
    const withNew = [...DEFAULT_MISSING_CODES, { code: 'NASK', label: '未询问' }];
    const res = await put(withNew);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await t.call(s.admin, 'GET', url())).body.data.codes).toEqual(withNew);
    const [row] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.itemName, 'missingCodes')));
    expect(row).toMatchObject({ action: 'study.config', oldValue: DEFAULT_MISSING_CODES, newValue: withNew });

    // The new code marks a record; then it cannot go, nor can ND (marked in the tests above: 2 live records).
    const subjectRecordId = await patient('缺失五');
    const marked = await save({ subjectRecordId, version: 0, values: { dbp: '80' }, missing: { sbp: 'NASK' } });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    const removing = await put(DEFAULT_MISSING_CODES);
    expect(removing.status).toBe(400);
    expect(removing.body.msg).toBe('缺失原因代码 NASK 已被 1 条记录使用，不能删除');
    const unused = await put(withNew.filter((c) => c.code !== 'ASKU'));
    expect(unused.status, JSON.stringify(unused.body)).toBe(200);
  });
});
