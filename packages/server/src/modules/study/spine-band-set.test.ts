import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, studies } from '../../db/schema/index.js';
import { seedDemoStudy } from '../../db/demo-study.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { chainRows } from '../audit/audit-chain.js';

let t: TestApp;
let admin: string;
let studyId: number;
let imagingCrfId: number;

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-spine-band-set-test-${process.pid}` } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id;
  const crfs = (await t.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data as {
    id: number;
    title: string;
  }[];
  imagingCrfId = crfs.find((c) => c.title === '影像学检查')!.id;
});
afterAll(() => t.close());

const storedSet = async () =>
  (await t.db.select({ v: studies.spineBandSet }).from(studies).where(eq(studies.studyId, studyId)))[0]!.v;

describe('脊柱诊断分级标准: a study setting', () => {
  it("is the spec's bands unless chosen, and the study answers it", async () => {
    expect(await storedSet()).toBe('spec');
    const study = await t.call(admin, 'GET', `/api/business/study/${studyId}`);
    expect(study.status, JSON.stringify(study.body)).toBe(200);
    expect(study.body.data.spineBandSet).toBe('spec');
  });

  it('STUDY-07: is stored and audited like the other settings: one study.config row with old and new value and the reason', async () => {
    const before = (await chainRows(t.db, eq(auditEvents.studyId, studyId))).at(-1)?.id ?? 0;
    const res = await t.call(admin, 'PUT', '/api/business/study', {
      id: studyId,
      spineBandSet: 'literature',
      reason: '按 SRS–Schwab 分级',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.spineBandSet).toBe('literature');
    expect(await storedSet()).toBe('literature');
    const rows = (await chainRows(t.db, eq(auditEvents.studyId, studyId))).filter((r) => r.id > before);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'study.config',
      itemName: 'spineBandSet',
      oldValue: 'spec',
      newValue: 'literature',
      reason: '按 SRS–Schwab 分级',
    });
    // The same choice again changes nothing and writes nothing.
    const again = await t.call(admin, 'PUT', '/api/business/study', { id: studyId, spineBandSet: 'literature' });
    expect(again.status).toBe(200);
    expect((await chainRows(t.db, eq(auditEvents.studyId, studyId))).filter((r) => r.id > before)).toHaveLength(1);
  });

  it('refuses a band set it does not know, with 脊柱诊断分级标准无效, and keeps the stored one', async () => {
    const res = await t.call(admin, 'PUT', '/api/business/study', { id: studyId, spineBandSet: 'schwab' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('脊柱诊断分级标准无效');
    expect(await storedSet()).toBe('literature');
  });

  it("reaches the form: a record's detail carries the study's band set for its spine measurement widget", async () => {
    const subject = (
      await t.call(admin, 'POST', '/api/business/subject', {
        studyId,
        subjectName: '钱七',
        gender: 1,
        birth: '1958-03-02',
        diseaseCode: 'LSS',
      })
    ).body.data as { subjectRecordId: number };
    const detail = async () =>
      (await t.call(admin, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${imagingCrfId}`)).body
        .data as { spineBandSet?: string };
    expect((await detail()).spineBandSet).toBe('literature');
    await t.call(admin, 'PUT', '/api/business/study', { id: studyId, spineBandSet: 'spec' });
    expect((await detail()).spineBandSet).toBe('spec');
  });
});
