import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amendments, auditEvents, crfDataRecords, crfVersions, crfs } from '../../db/schema/index.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { enrol, openAmendmentStudy, save, uploadDraft, V1, V2, type AmendmentStudy } from './amendment-test-kit.js';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.login()).token;
});
afterAll(() => t.close());

const draftUrl = (s: AmendmentStudy) => `/api/system/crf/draft?studyId=${s.studyId}&crfId=${s.crfId}`;
const versionsOf = (crfId: number) =>
  t.db
    .select({ version: crfVersions.version, draft: crfVersions.draft, publishedAt: crfVersions.publishedAt })
    .from(crfVersions)
    .where(eq(crfVersions.crfId, crfId))
    .orderBy(asc(crfVersions.version));
const currentVersion = async (crfId: number) =>
  (await t.db.select({ v: crfs.currentVersion }).from(crfs).where(eq(crfs.id, crfId)))[0]!.v;

describe('CRF drafts', () => {
  it('a draft opens as a copy of the current version, one per CRF; upload with draft=1 replaces it; discarding leaves the published version as it was', async () => {
    const s = await openAmendmentStudy(t, admin);
    expect((await t.call(admin, 'GET', draftUrl(s))).body.data).toBeNull();

    const opened = await t.call(admin, 'POST', '/api/system/crf/draft', { studyId: s.studyId, crfId: s.crfId });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body.data).toMatchObject({ version: 2, itemCount: 7, createdByName: expect.any(String) });
    expect((await t.call(admin, 'GET', draftUrl(s))).body.data).toEqual(opened.body.data);
    const again = await t.call(admin, 'POST', '/api/system/crf/draft', { studyId: s.studyId, crfId: s.crfId });
    expect(again.status).toBe(409);
    expect(again.body.msg).toBe('该CRF已有未发布的草稿');
    // The copy: same items; the published version is still 1 and readers see it.
    const copy = await t.call(admin, 'GET', `/api/system/crf/${s.crfId}?version=2`);
    expect(copy.body.data.definition.children.map((c: { name: string }) => c.name)).toEqual(
      V1.children.map((c) => c.name),
    );
    expect(copy.body.data.versions.map((v: { version: number; draft: boolean }) => [v.version, v.draft])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(await currentVersion(s.crfId)).toBe(1);
    expect((await t.call(admin, 'GET', `/api/system/crf/${s.crfId}`)).body.data.version).toBe(1);

    // A dry run says what the upload would do; the upload replaces the draft's definition, not its number.
    const planned = await uploadDraft(t, admin, s.studyId, V2, { dryRun: '1' });
    expect(planned.status, JSON.stringify(planned.body)).toBe(200);
    expect(planned.body.data.plan).toEqual([
      expect.objectContaining({ crfId: s.crfId, action: 'version', version: 2 }),
    ]);
    const uploaded = await uploadDraft(t, admin, s.studyId, V2);
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
    expect(uploaded.body.data.crfs).toEqual([{ id: s.crfId, title: V2.title, version: 2 }]);
    const replaced = await t.call(admin, 'GET', `/api/system/crf/${s.crfId}?version=2`);
    expect(replaced.body.data.definition.children.map((c: { name: string }) => c.name)).toContain('alcohol');
    expect(await versionsOf(s.crfId)).toEqual([
      { version: 1, draft: false, publishedAt: expect.any(Date) },
      { version: 2, draft: true, publishedAt: null },
    ]);
    expect(await currentVersion(s.crfId)).toBe(1);
    // A direct upload of the next version while the draft is open would take its number: refused.
    const direct = await t.call(admin, 'POST', '/api/system/crf', {
      studyId: s.studyId,
      definition: V2,
      onExisting: { [V2.title]: 'version' },
    });
    expect(direct.status).toBe(409);
    expect(direct.body.msg).toBe(`CRF“${V2.title}”有未发布的草稿，请先发布或放弃草稿`);
    // A form the study does not have cannot go into a draft.
    const unknown = await uploadDraft(t, admin, s.studyId, { ...V2, title: '不存在的表单' });
    expect(unknown.status).toBe(400);

    const discarded = await t.app.inject({
      method: 'DELETE',
      url: draftUrl(s),
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(discarded.statusCode, discarded.body).toBe(200);
    expect(await versionsOf(s.crfId)).toEqual([{ version: 1, draft: false, publishedAt: expect.any(Date) }]);
    expect((await t.call(admin, 'GET', draftUrl(s))).body.data).toBeNull();
    const actions = await t.db
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.crfId, s.crfId)))
      .orderBy(asc(auditEvents.id));
    expect(actions.map((a) => a.action)).toEqual([
      'study.crf.upload',
      'study.crf.draft',
      'study.crf.draft',
      'study.crf.draft_discard',
    ]);
  });

  it('a test patient fills the open draft, other patients the current version; a discarded draft puts the test record back on the current version', async () => {
    const s = await openAmendmentStudy(t, admin);
    expect((await uploadDraft(t, admin, s.studyId, V2)).status).toBe(200);
    const tester = await enrol(t, s, { test: true });
    const real = await enrol(t, s);
    // The form page shows the draft to the test patient before anything is saved.
    const page = (id: number) => t.call(admin, 'GET', `/api/v3/business/crf/${id}?crfId=${s.crfId}`);
    expect((await page(tester.subjectRecordId)).body.data.crf.version).toBe(2);
    expect((await page(real.subjectRecordId)).body.data.crf.version).toBe(1);
    const saved = await save(t, s, tester.subjectRecordId, { sex: '1', alcohol: '偶尔' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const other = await save(t, s, real.subjectRecordId, { sex: '1', note: '正式' });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const rows = await t.db
      .select({ id: crfDataRecords.id, crfVersion: crfDataRecords.crfVersion, values: crfDataRecords.values })
      .from(crfDataRecords)
      .where(eq(crfDataRecords.crfId, s.crfId))
      .orderBy(asc(crfDataRecords.id));
    expect(rows.map((r) => [r.crfVersion, r.values.alcohol ?? r.values.note])).toEqual([
      [2, '偶尔'],
      [1, '正式'],
    ]);

    const discarded = await t.app.inject({
      method: 'DELETE',
      url: draftUrl(s),
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(discarded.statusCode, discarded.body).toBe(200);
    const [back] = await t.db
      .select({ crfVersion: crfDataRecords.crfVersion, values: crfDataRecords.values })
      .from(crfDataRecords)
      .where(eq(crfDataRecords.id, rows[0]!.id));
    // Back on version 1; the draft's value is kept (inert: version 1 has no 饮酒).
    expect(back).toEqual({ crfVersion: 1, values: expect.objectContaining({ alcohol: '偶尔' }) });
    const [moved] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.crfDataRecordId, rows[0]!.id), eq(auditEvents.action, 'crf.migrate')));
    expect(moved).toMatchObject({ oldValue: 2, newValue: 1, reason: '放弃CRF草稿' });
  });

  it('publishing the draft makes it the current version and records the amendment with its impact; without a draft there is nothing to publish', async () => {
    const s = await openAmendmentStudy(t, admin);
    const p = await enrol(t, s);
    expect((await save(t, s, p.subjectRecordId, { sex: '2', smoke: '5年' })).status).toBe(200);
    const none = await t.call(admin, 'POST', '/api/system/crf/draft/publish', {
      studyId: s.studyId,
      crfId: s.crfId,
      name: '修订一',
    });
    expect(none.status).toBe(404);
    expect((await uploadDraft(t, admin, s.studyId, V2)).status).toBe(200);
    const published = await t.call(admin, 'POST', '/api/system/crf/draft/publish', {
      studyId: s.studyId,
      crfId: s.crfId,
      name: '2026年第1次方案修订',
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body.data).toEqual({ amendmentId: expect.any(Number), version: 2 });
    expect(await currentVersion(s.crfId)).toBe(2);
    expect(await versionsOf(s.crfId)).toEqual([
      { version: 1, draft: false, publishedAt: expect.any(Date) },
      { version: 2, draft: false, publishedAt: expect.any(Date) },
    ]);
    const [row] = await t.db.select().from(amendments).where(eq(amendments.id, published.body.data.amendmentId));
    expect(row).toMatchObject({ studyId: s.studyId, kind: 'crf', crfId: s.crfId, fromVersion: 1, toVersion: 2 });
    expect(row!.report).toMatchObject({ records: { total: 1, changed: 1 } });
    // The report holds counts and item names, never a value.
    expect(JSON.stringify(row!.report)).not.toContain('5年');
    // A new record now takes version 2; the old one stays on 1 until moved.
    const q = await enrol(t, s);
    expect((await save(t, s, q.subjectRecordId, { sex: '1' })).status).toBe(200);
    const versions = await t.db
      .select({ v: crfDataRecords.crfVersion })
      .from(crfDataRecords)
      .where(eq(crfDataRecords.crfId, s.crfId))
      .orderBy(asc(crfDataRecords.id));
    expect(versions.map((r) => r.v)).toEqual([1, 2]);
  });

  it('in a production study a direct upload of a new version of a form with live records records an amendment; without records it does not', async () => {
    const s = await openAmendmentStudy(t, admin);
    const direct = () =>
      t.call(admin, 'POST', '/api/system/crf', {
        studyId: s.studyId,
        definition: V2,
        onExisting: { [V2.title]: 'version' },
      });
    expect((await direct()).status).toBe(200);
    expect(await t.db.select().from(amendments).where(eq(amendments.studyId, s.studyId))).toEqual([]);
    const p = await enrol(t, s);
    expect((await save(t, s, p.subjectRecordId, { sex: '1', weight: '120' })).status).toBe(200);
    expect((await direct()).status).toBe(200);
    const rows = await t.db.select().from(amendments).where(eq(amendments.studyId, s.studyId));
    expect(rows).toEqual([
      expect.objectContaining({ crfId: s.crfId, fromVersion: 2, toVersion: 3, name: `${V2.title} 第3版（直接上传）` }),
    ]);
    expect(rows[0]!.report).toMatchObject({ records: { total: 1 } });
  });
});
