import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, medicalRecords } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { callAs, matrixCallers, type Caller } from '../knowledge/content-test-kit.js';

let t: TestApp;
let admin: string;
let studyId: number;
let who: Record<Caller, string>;
let viewer: string;
let subjectId: number;
let subjectRecordId: number;
let recordId: number;
let otherRecordId: number;
let fileKey: string;

async function enrol(name: string) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: name,
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: number; subjectRecordId: number };
}

beforeAll(async () => {
  t = await createTestApp();
  let crfIds: Record<string, number>;
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const vitals = crfIds['生命体征']!;
  who = await matrixCallers(
    t,
    admin,
    studyId,
    ['btn:project.medical.view', 'btn:project.medical.edit', `crf:${vitals}:view`],
    '139000044',
  );
  // Reads medical records, may not edit them, and sees patients' names masked (no 查看患者身份信息).
  viewer = await addStudyMember(t, admin, studyId, '13900004404', { permissions: ['btn:project.medical.view'] });
  const subject = await enrol('王大明');
  subjectId = subject.id;
  subjectRecordId = subject.subjectRecordId;
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: vitals,
    version: 0,
    values: { sbp: 130, dbp: 80, hr: 70 },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  recordId = saved.body.data.crfDataRecordId;
  const other = await enrol('李小红');
  otherRecordId = (
    await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: other.subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { sbp: 120, dbp: 70, hr: 60 },
    })
  ).body.data.crfDataRecordId;
  const body = multipart({}, [
    { fileName: '出院小结.pdf', data: Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n'), type: 'application/pdf' },
  ]);
  const up = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${studyId}`,
    headers: { ...body.headers, authorization: `Bearer ${who.withKey}` },
    payload: body.payload,
  });
  expect(up.statusCode, up.body).toBe(200);
  fileKey = (up.json() as { data: { fileKey: string } }).data.fileKey;
});
afterAll(() => t.close());

const record = (over: Record<string, unknown> = {}) => ({
  studyId,
  subjectId,
  title: '第一次住院出院小结',
  category: '出院小结',
  visitDate: '2026-11-01',
  hospital: '第一人民医院',
  note: '术后恢复良好，切口愈合。',
  files: [{ fileKey, fileName: '出院小结.pdf' }],
  ...over,
});

const auditRows = () =>
  t.db.select().from(auditEvents).where(eq(auditEvents.subjectRecordId, subjectRecordId)).orderBy(asc(auditEvents.id));

describe('medical records (/project/medical: medicals, PUT /api/v1/medical/crf)', () => {
  it('KNOW-01/KNOW-08: a member with 编辑病历资料 adds a record with a file; it is audited on the casebook', async () => {
    const made = await t.call(who.withKey, 'POST', '/api/v1/medical', record());
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.data).toMatchObject({ subjectId, title: '第一次住院出院小结', crfDataRecordId: null });
    const trail = (await auditRows()).filter((r) => r.action.startsWith('medical.'));
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({ action: 'medical.create', itemName: `病历资料#${made.body.data.id}` });
    expect((trail[0]!.newValue as { note: string }).note).toBe('术后恢复良好，切口愈合。');
    const file = await t.app.inject({
      method: 'GET',
      url: `/api/v1/medical/${made.body.data.id}/file?studyId=${studyId}&fileKey=${fileKey}`,
      headers: { authorization: `Bearer ${viewer}` },
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toContain('attachment');
  });

  it('KNOW-08: PUT /api/v1/medical/crf links the record to a CRF record of the same patient as its source document', async () => {
    const id = (
      await t.call(who.withKey, 'POST', '/api/v1/medical', record({ title: '入院记录', category: '入院记录' }))
    ).body.data.id;
    const linkable = await t.call(who.withKey, 'GET', `/api/v1/medical/crfs?studyId=${studyId}&subjectId=${subjectId}`);
    expect(linkable.body.data).toEqual([expect.objectContaining({ crfDataRecordId: recordId, crfTitle: '生命体征' })]);
    expect(
      (await t.call(viewer, 'GET', `/api/v1/medical/crfs?studyId=${studyId}&subjectId=${subjectId}`)).body.data,
    ).toEqual([]);
    const other = await t.call(who.withKey, 'PUT', '/api/v1/medical/crf', {
      studyId,
      id,
      crfDataRecordId: otherRecordId,
    });
    expect(other.body.msg).toBe('表单记录不属于该患者');
    const linked = await t.call(who.withKey, 'PUT', '/api/v1/medical/crf', { studyId, id, crfDataRecordId: recordId });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body.data).toMatchObject({ crfDataRecordId: recordId, crfTitle: '生命体征' });
    const bySource = await t.call(viewer, 'GET', `/api/v1/medicals?studyId=${studyId}&crfDataRecordId=${recordId}`);
    expect(bySource.body.data.list.map((m: { id: number }) => m.id)).toEqual([id]);
    // The viewer may not view 生命体征: the link shows without the form's title.
    expect(bySource.body.data.list[0].crfTitle).toBeNull();
    const last = (await auditRows()).at(-1)!;
    expect(last).toMatchObject({
      action: 'medical.crf',
      crfDataRecordId: recordId,
      oldValue: null,
      newValue: recordId,
    });
    const unlinked = await t.call(who.withKey, 'PUT', '/api/v1/medical/crf', {
      studyId,
      id,
      crfDataRecordId: null,
      reason: '关联错误',
    });
    expect(unlinked.body.data.crfDataRecordId).toBeNull();
    expect((await auditRows()).at(-1)).toMatchObject({
      action: 'medical.crf',
      oldValue: recordId,
      newValue: null,
      reason: '关联错误',
    });
  });

  it('KNOW-08: edits and deletions need a reason and keep old and new values; a deletion is a mark', async () => {
    const id = (
      await t.call(who.withKey, 'POST', '/api/v1/medical', record({ title: '手术记录', category: '手术记录' }))
    ).body.data.id;
    const noReason = await t.call(who.withKey, 'PUT', `/api/v1/medical/${id}`, record({ title: '手术记录' }));
    expect(noReason.status).toBe(400);
    const edited = await t.call(
      who.withKey,
      'PUT',
      `/api/v1/medical/${id}`,
      record({ title: '手术记录（更正）', reason: '标题有误' }),
    );
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const upd = (await auditRows()).at(-1)!;
    expect(upd).toMatchObject({ action: 'medical.update', reason: '标题有误' });
    expect((upd.oldValue as { title: string }).title).toBe('手术记录');
    expect((upd.newValue as { title: string }).title).toBe('手术记录（更正）');
    const gone = await t.call(
      who.withKey,
      'DELETE',
      `/api/v1/medical/${id}?studyId=${studyId}&reason=${encodeURIComponent('重复上传')}`,
    );
    expect(gone.status).toBe(200);
    expect((await auditRows()).at(-1)).toMatchObject({ action: 'medical.delete', reason: '重复上传' });
    const [row] = await t.db.select().from(medicalRecords).where(eq(medicalRecords.id, id));
    expect(row!.deletedAt).not.toBeNull();
    expect((await t.call(viewer, 'GET', `/api/v1/medical/${id}?studyId=${studyId}`)).status).toBe(404);
  });

  it('KNOW-08: names are masked for a member without 查看患者身份信息; the keyword finds the patient code', async () => {
    const list = await t.call(viewer, 'GET', `/api/v1/medicals?studyId=${studyId}`);
    expect(list.body.data.total).toBeGreaterThan(0);
    expect(list.body.data.list[0].subjectName).not.toBe('王大明');
    expect((await t.call(admin, 'GET', `/api/v1/medicals?studyId=${studyId}`)).body.data.list[0].subjectName).toBe(
      '王大明',
    );
    const code = list.body.data.list[0].identificationCode as string;
    expect(
      (await t.call(viewer, 'GET', `/api/v1/medicals?studyId=${studyId}&keyword=${encodeURIComponent(code)}`)).body.data
        .total,
    ).toBe(list.body.data.total);
  });

  it('KNOW-08: permission matrix of every medical-record call', async () => {
    const id = (await t.call(admin, 'POST', '/api/v1/medical', record({ title: '矩阵' }))).body.data.id as number;
    const all = { admin: 200, withKey: 200, withoutKey: 403, outsider: 403, anonymous: 401 };
    const rows: Array<[string, string, unknown, Record<Caller, number>]> = [
      ['GET', `/api/v1/medicals?studyId=${studyId}`, undefined, all],
      ['GET', `/api/v1/medical/${id}?studyId=${studyId}`, undefined, all],
      ['GET', `/api/v1/medical/${id}/file?studyId=${studyId}&fileKey=${fileKey}`, undefined, all],
      ['POST', '/api/v1/medical', record({ title: '矩阵新增' }), all],
      ['PUT', `/api/v1/medical/${id}`, record({ title: '矩阵修改', reason: '核对' }), all],
      ['PUT', '/api/v1/medical/crf', { studyId, id, crfDataRecordId: recordId }, all],
      [
        'DELETE',
        `/api/v1/medical/${id}?studyId=${studyId}&reason=x`,
        undefined,
        { anonymous: 401, outsider: 403, withoutKey: 403, withKey: 200, admin: 404 },
      ],
    ];
    for (const [method, url, body, expected] of rows) {
      for (const caller of Object.keys(expected) as Caller[]) {
        const res = await callAs(t, who[caller], method, url, body);
        expect(`${method} ${url} ${caller} ${res.status}`).toBe(`${method} ${url} ${caller} ${expected[caller]}`);
      }
    }
    // 查看病历资料 alone reads but does not write.
    expect((await t.call(viewer, 'POST', '/api/v1/medical', record())).status).toBe(403);
  });
});
