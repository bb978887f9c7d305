import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '@ecrf/core';
import { auditEvents, users } from '../../db/schema/index.js';
import { seedDemoStudy } from '../../db/demo-study.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';
import { addStudyMember } from '../../test/study-member.js';

let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-capture-test-${process.pid}` } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  const studies = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list;
  studyId = studies[0].id;
  for (const crf of (await t.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data) {
    crfIds[crf.title] = crf.id;
  }
});
afterAll(() => t.close());

async function enrol(extra: object = {}) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '王五',
    gender: 1,
    birth: '1958-03-02',
    diseaseCode: 'LSS',
    mobile: '13912345678',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: number; subjectRecordId: number; identificationCode: string };
}

const save = (body: object, token = admin) => t.call(token, 'PUT', '/api/v3/business/crf', body);

const userInStudy = (userName: string, permissions: string[]) =>
  addStudyMember(t, admin, studyId, userName, { permissions });

describe('patients', () => {
  it('SUBJ-20/SUBJ-21/SUBJ-09: enrols with a serial number, reads the form model and the patient', async () => {
    const model = (await t.call(admin, 'GET', `/api/v2/business/subject/crf?studyId=${studyId}`)).body.data;
    expect(model).toMatchObject({ enableSerialNumber: true, serialPreview: 'LSS-0001' });
    expect(model.diseases.map((d: { diseaseCode: string }) => d.diseaseCode)).toEqual(['LSS', 'LDS']);
    const first = await enrol({ identificationCode: 'IGNORED' });
    expect(first.identificationCode).toBe('LSS-0001');
    const read = (await t.call(admin, 'GET', `/api/business/subject/${first.id}`)).body.data;
    expect(read).toMatchObject({
      subjectName: '王五',
      gender: 1,
      birth: '1958-03-02',
      age: 68,
      state: 0,
      creater: '系统管理员',
      subjectRecordId: first.subjectRecordId,
    });
    expect(read.qrCode).toMatch(/^[0-9a-f]{32}$/);
    expect(
      (await t.call(admin, 'GET', `/api/business/ducking/patientInfo/${first.subjectRecordId}`)).body.data.id,
    ).toBe(first.id);
    const edited = await t.call(admin, 'PUT', '/api/business/subject', {
      id: first.id,
      identificationCode: 'CHANGED',
      subjectName: '王五',
      gender: 1,
      birth: '1958-03-02',
      diseaseCode: 'LDS',
    });
    expect(edited.body.data).toMatchObject({ identificationCode: 'LSS-0001', diseaseCode: 'LDS' });
    const history = (
      await t.call(admin, 'GET', `/api/business/subjectRecord/operates?subjectRecordId=${first.subjectRecordId}`)
    ).body.data.list;
    expect(history[0]).toMatchObject({
      action: 'subject.update',
      itemName: 'diseaseCode',
      oldValue: 'LSS',
      newValue: 'LDS',
    });
  });

  it('SUBJ-16: a mobile typed with +86, spaces or hyphens is stored as the 11-digit number', async () => {
    const enrolled = await enrol({ subjectName: '周九', mobile: '+86 139-1234-5670' });
    const read = (await t.call(admin, 'GET', `/api/business/subject/${enrolled.id}`)).body.data;
    expect(read.mobile).toBe('13912345670');
    const edited = await t.call(admin, 'PUT', '/api/business/subject', { id: enrolled.id, mobile: '0086 13912345671' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect((await t.call(admin, 'GET', `/api/business/subject/${enrolled.id}`)).body.data.mobile).toBe('13912345671');
  });

  it('SUBJ-11..SUBJ-17: applies the patient rules on the server with the spec messages', async () => {
    await t.call(admin, 'PUT', '/api/v2/business/study/serial_number/close', { studyId });
    try {
      const post = (body: object) =>
        t.call(admin, 'POST', '/api/business/subject', {
          studyId,
          subjectName: '赵六',
          gender: 0,
          diseaseCode: 'LSS',
          identificationCode: 'M-001',
          ...body,
        });
      expect((await post({ identificationCode: '' })).body.msg).toBe(MSG.codeRequired);
      expect((await post({ subjectName: '' })).body.msg).toBe(MSG.subjectNameRequired);
      expect((await post({ gender: 3 })).status).toBe(400);
      expect((await post({ diseaseCode: 'NOPE' })).body.msg).toBe(MSG.diseaseRequired);
      expect((await post({ mobile: '1234' })).body.msg).toBe(MSG.subjectMobile);
      expect((await post({ birth: '2026-11-20' })).body.msg).toBe(MSG.birthTooLate);
      expect((await post({})).status).toBe(200);
      const dup = await post({});
      expect(dup.status).toBe(409);
      expect(dup.body.msg).toBe('编号已存在');
      expect(
        (await t.call(admin, 'GET', `/api/business/subject/unique?studyId=${studyId}&identificationCode=M-001`)).body
          .data,
      ).toBe(true);
      expect(
        (await t.call(admin, 'GET', `/api/business/subject/unique?studyId=${studyId}&identificationCode=M-999`)).body
          .data,
      ).toBe(false);
    } finally {
      await t.call(admin, 'PUT', '/api/v2/business/study/serial_number/enable', { studyId, prefix: 'LSS-', digits: 4 });
    }
  });

  it('SUBJ-24/SUBJ-25/SUBJ-26/SUBJ-27: lists, filters, changes state with a reason, soft-deletes and restores', async () => {
    const subject = await enrol({ subjectName: '孙七' });
    const list = await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
      studyId,
      pageNum: 1,
      pageSize: 10,
      subjectName: '孙七',
    });
    expect(list.body.data.total).toBe(1);
    expect(list.body.data.list[0]).toMatchObject({ subjectName: '孙七', crfStates: { total: 6, submitted: 0 } });
    expect(
      (await t.call(admin, 'GET', `/api/v1/business/subjectRecord/list?studyId=${studyId}&subjectName=孙七`)).body.data
        .total,
    ).toBe(1);
    const columns = (await t.call(admin, 'GET', `/api/v3/business/subjectRecord/columns?studyId=${studyId}`)).body.data;
    expect(columns.map((c: { key: string }) => c.key)).toEqual(
      expect.arrayContaining(['identificationCode', 'subjectName', 'sex', 'age']),
    );
    expect(columns.find((c: { key: string; source: string }) => c.key === 'sex' && c.source === 'crf').title).toBe(
      '性别',
    );
    expect(
      (
        await t.call(admin, 'PUT', '/api/business/subjectRecord/state', {
          subjectRecordId: subject.subjectRecordId,
          state: 2,
        })
      ).body.msg,
    ).toBe('请填写退出原因');
    expect(
      (
        await t.call(admin, 'PUT', '/api/business/subjectRecord/state', {
          subjectRecordId: subject.subjectRecordId,
          state: 2,
          reason: '撤回知情同意',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
          studyId,
          pageNum: 1,
          pageSize: 10,
          state: 2,
        })
      ).body.data.list[0].subjectName,
    ).toBe('孙七');
    expect(
      (await t.call(admin, 'DELETE', `/api/business/subjectRecord?subjectRecordId=${subject.subjectRecordId}`)).body
        .msg,
    ).toBe('请填写删除原因');
    expect(
      (
        await t.call(
          admin,
          'DELETE',
          `/api/business/subjectRecord?subjectRecordId=${subject.subjectRecordId}&reason=${encodeURIComponent('重复录入')}`,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
          studyId,
          pageNum: 1,
          pageSize: 10,
          subjectName: '孙七',
        })
      ).body.data.total,
    ).toBe(0);
    expect(
      (
        await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
          studyId,
          pageNum: 1,
          pageSize: 10,
          subjectName: '孙七',
          deleted: true,
        })
      ).body.data.total,
    ).toBe(1);
    expect(
      (
        await t.call(admin, 'PUT', '/api/business/subjectRecord/restore', {
          subjectRecordId: subject.subjectRecordId,
          reason: '误删',
        })
      ).status,
    ).toBe(200);
    const trail = (
      await t.call(admin, 'GET', `/api/business/subjectRecord/operates?subjectRecordId=${subject.subjectRecordId}`)
    ).body.data.list;
    expect(trail.map((e: { action: string }) => e.action)).toEqual([
      'subject.restore',
      'subject.delete',
      'subject.state',
      'subject.create',
    ]);
    expect(trail[1].reason).toBe('重复录入');
    expect((await t.call(admin, 'GET', `/api/business/subjectRecord/operate?id=${trail[0].id}`)).body.data.action).toBe(
      'subject.restore',
    );
  });
});

describe('save and submit', () => {
  let subject: { subjectRecordId: number };
  let vitalsId: number;
  beforeAll(async () => {
    subject = await enrol({ subjectName: '周八' });
    vitalsId = crfIds['生命体征']!;
  });

  it('CRF-20/CRF-21: the menu lists stages and forms with states; the detail carries definition and permissions', async () => {
    const menu = (await t.call(admin, 'GET', `/api/business/crf/menu/${subject.subjectRecordId}`)).body.data;
    expect(menu.map((s: { title: string }) => s.title)).toEqual(['基线', '手术', '术后随访']);
    expect(menu[0].childrens[1]).toMatchObject({ title: '生命体征', type: 1, crfId: vitalsId, repeat: 1, state: 0 });
    expect(menu[2].childrens[0]).toMatchObject({ title: '术后随访', repeat: 0 });
    const detail = (await t.call(admin, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${vitalsId}`))
      .body.data;
    expect(detail).toMatchObject({
      crf: { id: vitalsId, title: '生命体征', version: 1 },
      crfDataRecord: null,
      repeat: 1,
      permissions: { save: true, submit: true, sdv: true },
    });
    expect(detail.initialValues.vs_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
  });

  let recordId: number;
  it('CRF-22/CRF-27: save keeps a partial form; type and range errors are refused; submit needs every required item', async () => {
    const partial = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      version: 0,
      values: { hr: 72 },
    });
    expect(partial.status, JSON.stringify(partial.body)).toBe(200);
    expect(partial.body.data).toMatchObject({ version: 1, state: 1 });
    recordId = partial.body.data.crfDataRecordId;
    const bad = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      crfDataRecordId: recordId,
      version: 1,
      values: { hr: 72, sbp: 'abc' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.data.errors[0].itemName).toBe('sbp');
    const incomplete = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      crfDataRecordId: recordId,
      version: 1,
      values: { hr: 72 },
      submit: true,
    });
    expect(incomplete.body.msg).toBe('请将必填项填写完整');
    expect(incomplete.body.data.errors.map((e: { itemName: string }) => e.itemName).sort()).toEqual(['dbp', 'sbp']);
    const crossCheck = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      crfDataRecordId: recordId,
      version: 1,
      values: { hr: 72, sbp: 70, dbp: 80 },
      submit: true,
    });
    expect(crossCheck.body.data.errors[0].message).toBe('收缩压应大于舒张压');
    const submitted = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      crfDataRecordId: recordId,
      version: 1,
      values: { hr: 72, sbp: 190, dbp: 80 },
      submit: true,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.data).toMatchObject({ state: 2, version: 2 });
    expect(submitted.body.data.warnings[0].message).toBe('收缩压≥180 mmHg，请核实');
    // The ≥180 warning became a system query, so the form shows 存在质疑 (9).
    const menu = (await t.call(admin, 'GET', `/api/business/crf/menu/${subject.subjectRecordId}`)).body.data;
    expect(menu[0].childrens[1].state).toBe(9);
  });

  it('a change to a submitted form needs a reason, and every changed item is audited with old and new values', async () => {
    const noReason = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      crfDataRecordId: recordId,
      version: 2,
      values: { hr: 80, sbp: 150, dbp: 80 },
    });
    expect(noReason.body.msg).toBe('修改已提交的数据需要填写修改原因');
    const changed = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      crfDataRecordId: recordId,
      version: 2,
      values: { hr: 80, sbp: 150, dbp: 80 },
      reason: '抄录错误',
    });
    expect(changed.body.data).toMatchObject({ state: 2, version: 3 });
    expect(changed.body.data.changedItems.sort()).toEqual(['hr', 'sbp']);
    const history = (await t.call(admin, 'GET', `/api/business/crf/audit?crfDataRecordId=${recordId}&itemName=sbp`))
      .body.data;
    expect(history[0]).toMatchObject({
      action: 'item.update',
      oldValue: 190,
      newValue: 150,
      reason: '抄录错误',
      userName: '系统管理员(13800000000)',
      crfVersion: 1,
    });
    expect(history[1]).toMatchObject({ oldValue: null, newValue: 190 });
  });

  it('refuses a save based on an older version with 409 and what changed; repeating a request is idempotent', async () => {
    const stale = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      crfDataRecordId: recordId,
      version: 2,
      values: { hr: 99, sbp: 150, dbp: 80 },
      reason: 'x',
    });
    expect(stale.status).toBe(409);
    expect(stale.body.msg).toBe('数据已被他人修改，请刷新后重试');
    expect(stale.body.data.current).toMatchObject({ version: 3 });
    expect(Number(stale.body.data.current.values.hr)).toBe(80);
    expect(stale.body.data.changedItems).toEqual(['hr']);
    const body = {
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      crfDataRecordId: recordId,
      version: 3,
      values: { hr: 81, sbp: 150, dbp: 80 },
      reason: '复测',
      requestId: 'req-123',
    };
    const first = await save(body);
    const again = await save(body);
    expect(first.body.data.version).toBe(4);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ version: 4, repeated: true });
    const single = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: vitalsId,
      version: 0,
      values: { hr: 1 },
    });
    expect(single.status).toBe(409);
  });

  it('accepts the save as form data too', async () => {
    const form = multipart(
      {
        subjectRecordId: String(subject.subjectRecordId),
        crfId: String(crfIds['实验室检查']),
        version: '0',
        values: JSON.stringify({ hb: 128.5, crp: 3 }),
      },
      [],
    );
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/v3/business/crf',
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ state: 1, version: 1 });
  });

  it('the engine decides: hidden items are cleared and calculations recomputed on the server', async () => {
    const demographics = crfIds['人口学资料']!;
    const res = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: demographics,
      version: 0,
      values: { sex: '1', birth: '1958-03-02', height: 170, weight: 72.25, bmi: 99, smoke: '0', smoke_years: 30 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const detail = (await t.call(admin, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${demographics}`))
      .body.data;
    expect(detail.crfDataRecord.values.bmi).not.toBe(99);
    expect(Number(detail.crfDataRecord.values.bmi)).toBeCloseTo(25, 0);
    expect(detail.crfDataRecord.values.smoke_years ?? null).toBeNull();
  });

  it('CRF-24/CRF-25/CRF-26: a repeatable form holds several records; one is deleted with a reason and audited', async () => {
    const followUp = crfIds['术后随访']!;
    const a = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: followUp,
      version: 0,
      values: { fu_date: '2026-01-10', odi: 30 },
    });
    const b = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: followUp,
      version: 0,
      values: { fu_date: '2026-04-10', odi: 20 },
    });
    const list = (
      await t.call(admin, 'GET', `/api/business/crf/data/list/${subject.subjectRecordId}?crfId=${followUp}`)
    ).body.data;
    expect(list.map((r: { crfDataRecordId: number }) => r.crfDataRecordId)).toEqual([
      a.body.data.crfDataRecordId,
      b.body.data.crfDataRecordId,
    ]);
    expect(
      (await t.call(admin, 'DELETE', `/api/business/crf/data?crfDataRecordId=${a.body.data.crfDataRecordId}`)).status,
    ).toBe(400);
    expect(
      (
        await t.call(
          admin,
          'DELETE',
          `/api/business/crf/data?crfDataRecordId=${a.body.data.crfDataRecordId}&reason=${encodeURIComponent('重复')}`,
        )
      ).status,
    ).toBe(200);
    expect(
      (await t.call(admin, 'GET', `/api/business/crf/data/list/${subject.subjectRecordId}?crfId=${followUp}`)).body
        .data,
    ).toHaveLength(1);
    const trail = (await t.call(admin, 'GET', `/api/business/crf/audit?crfDataRecordId=${a.body.data.crfDataRecordId}`))
      .body.data;
    expect(trail[0]).toMatchObject({ action: 'crf.delete', reason: '重复' });
  });

  it('the audit trail is append-only in the database itself', async () => {
    await expect(t.db.update(auditEvents).set({ reason: '篡改' })).rejects.toThrow();
    await expect(t.db.delete(auditEvents)).rejects.toThrow();
    await expect(t.db.execute(sql`truncate audit_events`)).rejects.toThrow();
  });
});

describe('SDV and signatures', () => {
  it('SDV marks items; a later change clears the mark of the changed item, audited', async () => {
    const subject = await enrol({ subjectName: '吴九' });
    const labs = crfIds['实验室检查']!;
    const saved = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: labs,
      version: 0,
      values: { hb: 120, crp: 2 },
    });
    const id = saved.body.data.crfDataRecordId;
    const marks = (
      await t.call(admin, 'PUT', '/api/business/crf/sdv', {
        crfDataRecordId: id,
        itemNames: ['hb', 'crp'],
        verified: true,
      })
    ).body.data;
    expect(Object.keys(marks).sort()).toEqual(['crp', 'hb']);
    await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: labs,
      crfDataRecordId: id,
      version: 1,
      values: { hb: 121, crp: 2 },
    });
    const detail = (await t.call(admin, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${labs}`)).body
      .data;
    expect(Object.keys(detail.crfDataRecord.sdv)).toEqual(['crp']);
    const history = (await t.call(admin, 'GET', `/api/business/crf/audit?crfDataRecordId=${id}&itemName=hb`)).body.data;
    expect(history.map((h: { action: string }) => h.action)).toEqual([
      'sdv.clear',
      'item.update',
      'sdv.verify',
      'item.update',
    ]);
  });

  it('SUBJ-23: the investigator signs with the password; a later change invalidates the signature', async () => {
    const subject = await enrol({ subjectName: '郑十' });
    expect(
      (
        await t.call(admin, 'PUT', '/api/v1/business/subject/sign', {
          subjectRecordId: subject.subjectRecordId,
          password: 'wrong',
        })
      ).body.msg,
    ).toBe('密码错误，签名未完成');
    const signed = await t.call(admin, 'PUT', '/api/v1/business/subject/sign', {
      subjectRecordId: subject.subjectRecordId,
      password: TEST_ADMIN_PASSWORD,
    });
    expect(signed.body.data).toMatchObject({
      signer: '系统管理员',
      meaning: '本人确认以上数据真实、准确、完整',
      valid: true,
    });
    await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: crfIds['生命体征']!,
      version: 0,
      values: { hr: 70 },
    });
    const after = (
      await t.call(admin, 'GET', `/api/business/subject/signatures?subjectRecordId=${subject.subjectRecordId}`)
    ).body.data;
    expect(after[0]).toMatchObject({ valid: false, invalidatedReason: '表单“生命体征”的数据在签名后被修改' });
  });
});

describe('permissions and isolation of data', () => {
  it('a study role without save sees but cannot change; a non-member is refused everything', async () => {
    const subject = await enrol({ subjectName: '钱一' });
    const vitals = crfIds['生命体征']!;
    const viewer = await userInStudy('13300000001', [`crf:${vitals}:view`]);
    expect(
      (await t.call(viewer, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${vitals}`)).body.data
        .permissions,
    ).toMatchObject({ save: false, submit: false });
    expect(
      (await save({ subjectRecordId: subject.subjectRecordId, crfId: vitals, version: 0, values: { hr: 60 } }, viewer))
        .status,
    ).toBe(403);
    expect(
      (await t.call(viewer, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${crfIds['实验室检查']}`))
        .status,
    ).toBe(403);
    const menu = (await t.call(viewer, 'GET', `/api/business/crf/menu/${subject.subjectRecordId}`)).body.data;
    expect(menu[0].childrens.map((c: { title: string }) => c.title)).toEqual(['生命体征']);
    expect(
      (
        await t.call(viewer, 'POST', '/api/business/subject', {
          studyId,
          subjectName: 'x',
          gender: 1,
          diseaseCode: 'LSS',
        })
      ).status,
    ).toBe(403);

    const outsiderUser = await t.call(admin, 'POST', '/api/system/user', {
      userName: '13300000009',
      password: 'Passw0rd',
      name: '外人',
      deptId: 1,
      roleIds: [1],
    });
    const plain = await t.call(admin, 'POST', '/api/system/role', {
      roleName: '外部角色',
      roleKey: 'outsider',
      menuIds: [],
    });
    await t.call(admin, 'PUT', '/api/system/user', {
      userId: outsiderUser.body.data.userId,
      userName: '13300000009',
      name: '外人',
      deptId: 1,
      roleIds: [plain.body.data.roleId],
    });
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, outsiderUser.body.data.userId));
    const outsider = (await t.login('13300000009', 'Passw0rd')).token;
    for (const [method, url, body] of [
      ['GET', `/api/business/crf/menu/${subject.subjectRecordId}`],
      ['GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${vitals}`],
      [
        'PUT',
        '/api/v3/business/crf',
        { subjectRecordId: subject.subjectRecordId, crfId: vitals, version: 0, values: {} },
      ],
      ['GET', `/api/business/subject/${subject.id}`],
      ['POST', '/api/v3/business/subjectRecord/list', { studyId, pageNum: 1, pageSize: 10 }],
      ['GET', `/api/v3/business/overview/${subject.subjectRecordId}`],
      ['GET', `/api/business/index?studyId=${studyId}`],
    ] as const) {
      expect((await t.call(outsider, method, url, body)).status, `${method} ${url}`).toBe(403);
    }
  });
});

describe('files, overview, print and home', () => {
  const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

  it('stores an upload by content type and serves it only to members of its study', async () => {
    const form = multipart({ studyId: String(studyId) }, [
      { fileName: 'xray.png', data: Buffer.concat([PNG, Buffer.alloc(64)]) },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/common/file/upload?studyId=${studyId}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { fileKey, contentType } = res.json().data;
    expect(contentType).toBe('image/png');
    const down = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(down.statusCode).toBe(200);
    expect(down.headers['content-type']).toBe('image/png');
    // An <img src> carries no header: the HttpOnly cookie set at sign-in works for downloads, and only there.
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/api/ignore/sys/login',
      payload: { username: '13800000000', password: TEST_ADMIN_PASSWORD },
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    expect(String(signIn.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
          headers: { cookie },
        })
      ).statusCode,
    ).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/sys/login/getInfo', headers: { cookie } })).statusCode).toBe(
      401,
    );
    const html = multipart({ studyId: String(studyId) }, [
      { fileName: 'photo.png', data: '<html><script>alert(1)</script></html>' },
    ]);
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/common/file/upload?studyId=${studyId}`,
      headers: { ...html.headers, authorization: `Bearer ${admin}` },
      payload: html.payload,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().msg).toBe('不支持的文件类型');
    const outsiderStudy = (
      await t.call(admin, 'POST', '/api/business/study', { studyName: '另一个项目', studyCode: 'OTHER1' })
    ).body.data.id;
    const stranger = await userInStudy('13300000002', []);
    void outsiderStudy;
    // A member whose role grants no form reads no file; a user of no study may not either.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
          headers: { authorization: `Bearer ${stranger}` },
        })
      ).statusCode,
    ).toBe(403);
    const nobodyUser = await t.call(admin, 'POST', '/api/system/user', {
      userName: '13300000003',
      password: 'Passw0rd',
      name: '无关',
      deptId: 1,
      roleIds: [1],
    });
    const plain = await t.call(admin, 'POST', '/api/system/role', {
      roleName: '无关角色',
      roleKey: 'nobody',
      menuIds: [],
    });
    await t.call(admin, 'PUT', '/api/system/user', {
      userId: nobodyUser.body.data.userId,
      userName: '13300000003',
      name: '无关',
      deptId: 1,
      roleIds: [plain.body.data.roleId],
    });
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, nobodyUser.body.data.userId));
    const nobody = (await t.login('13300000003', 'Passw0rd')).token;
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
          headers: { authorization: `Bearer ${nobody}` },
        })
      ).statusCode,
    ).toBe(403);
    const upload = multipart({ studyId: String(studyId) }, [{ fileName: 'x.png', data: PNG }]);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/common/file/upload?studyId=${studyId}`,
          headers: { ...upload.headers, authorization: `Bearer ${nobody}` },
          payload: upload.payload,
        })
      ).statusCode,
    ).toBe(403);
  });

  it('the overview holds every viewable form with its records; the home counts subjects and forms', async () => {
    const subject = await enrol({ subjectName: '冯二' });
    await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: crfIds['生命体征']!,
      version: 0,
      values: { hr: 66 },
    });
    const overview = (await t.call(admin, 'GET', `/api/v3/business/overview/${subject.subjectRecordId}`)).body.data;
    expect(overview.subject.subjectName).toBe('冯二');
    expect(overview.crfs).toHaveLength(6);
    expect(Number(overview.crfs.find((c: { title: string }) => c.title === '生命体征').records[0].values.hr)).toBe(66);
    const home = (await t.call(admin, 'GET', `/api/business/index?studyId=${studyId}`)).body.data;
    expect(home.subjects.total).toBeGreaterThan(3);
    expect(home.forms.incomplete).toBeGreaterThan(0);
    expect(home.enrolment[0]).toMatchObject({ count: expect.any(Number) });
  });

  it('prints a Word template filled with a record’s values', async () => {
    const PizZip = (await import('pizzip')).default;
    const zip = new PizZip();
    zip.file(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    );
    zip.file(
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    );
    zip.file(
      'word/document.xml',
      '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>患者：{subjectName} 编号：{identificationCode} 性别：{sex} 体重：{weight}</w:t></w:r></w:p></w:body></w:document>',
    );
    const docx = zip.generate({ type: 'nodebuffer' });
    const demographics = crfIds['人口学资料']!;
    const form = multipart({}, [{ fileName: '人口学资料.docx', data: docx }]);
    const up = await t.app.inject({
      method: 'POST',
      url: `/api/v1/business/crf/print/temp?crfId=${demographics}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    expect(up.statusCode, up.body).toBe(200);
    expect((await t.call(admin, 'GET', `/api/v1/business/crf/print/is_temp?crfId=${demographics}`)).body.data).toBe(
      true,
    );
    const subject = await enrol({ subjectName: '陈三' });
    await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: demographics,
      version: 0,
      values: { sex: '2', weight: 55 },
    });
    const printed = await t.app.inject({
      method: 'GET',
      url: `/api/v1/business/crf/print/word?subjectRecordId=${subject.subjectRecordId}&crfId=${demographics}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(printed.statusCode).toBe(200);
    const text = new PizZip(printed.rawPayload).file('word/document.xml')!.asText();
    expect(text).toContain('患者：陈三');
    expect(text).toContain('性别：女');
    expect(text).toContain('体重：55');
    const bad = multipart({}, [{ fileName: 'x.docx', data: 'not a docx' }]);
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: `/api/v1/business/crf/print/temp?crfId=${demographics}`,
          headers: { ...bad.headers, authorization: `Bearer ${admin}` },
          payload: bad.payload,
        })
      ).statusCode,
    ).toBe(400);
    expect((await t.call(admin, 'DELETE', `/api/v1/business/crf/print/temp?crfId=${demographics}`)).status).toBe(200);
    expect((await t.call(admin, 'GET', `/api/v1/business/crf/print/is_temp?crfId=${demographics}`)).body.data).toBe(
      false,
    );
  });

  it('exports the study audit trail as CSV', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/business/audit/export?studyId=${studyId}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.body).toContain('item.update');
  });
});
