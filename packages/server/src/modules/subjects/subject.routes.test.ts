import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '@ecrf/core';
import { seedDemoStudy } from '../../db/demo-study.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';

let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-subjects-test-${process.pid}` } });
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
  it('SUBJ-29: in the patient area a patient carries crfStates.doubt (open and replied queries); its queries are the query entity, listed by subjectRecordId', async () => {
    const patient = await enrol({ subjectName: '吴十' });
    const vitals = crfIds['生命体征']!;
    const saved = await save({
      subjectRecordId: patient.subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { hr: 70 },
    });
    const crfDataRecordId = saved.body.data.crfDataRecordId as number;
    const open = async (itemName: string) =>
      (
        await t.call(admin, 'POST', '/api/business/doubt/open', {
          crfDataRecordId,
          itemName,
          doubtDescription: '请核实',
        })
      ).body.data.doubtId as number;
    await open('hr');
    const closed = await open('sbp');
    await t.call(admin, 'PUT', '/api/business/doubt/close', { doubtId: closed, content: '已核实' });
    const row = (
      await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
        studyId,
        pageNum: 1,
        pageSize: 10,
        subjectName: '吴十',
      })
    ).body.data.list[0];
    expect(row.crfStates.doubt).toBe(1);
    const queries = (
      await t.call(admin, 'GET', `/api/business/doubts?studyId=${studyId}&subjectRecordId=${patient.subjectRecordId}`)
    ).body.data;
    expect(queries.total).toBe(2);
    expect(queries.list[0]).toMatchObject({
      doubtId: expect.any(Number),
      crfDataRecordId,
      itemName: expect.any(String),
      doubtDescription: '请核实',
      optionType: expect.any(Number),
      doubtType: 1,
    });
  });
});

describe('signatures', () => {
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
