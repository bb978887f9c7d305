import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, users } from '../../db/schema/index.js';
import { seedDemoStudy } from '../../db/demo-study.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { addStudyMember } from '../../test/study-member.js';

let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-crf-data-test-${process.pid}` } });
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

  it('CRF-09: a form goes 0 (no record) → 1 (saved) → 2 (submitted, and still 2 when edited with a reason) → 9 (open query) → 2 when closed', async () => {
    const patient = await enrol({ subjectName: '钱九' });
    const vitals = crfIds['生命体征']!;
    const state = async () =>
      (await t.call(admin, 'GET', `/api/business/crf/menu/${patient.subjectRecordId}`)).body.data[0].childrens.find(
        (f: { crfId: number }) => f.crfId === vitals,
      ).state as number;
    expect(await state()).toBe(0);
    const saved = await save({
      subjectRecordId: patient.subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { sbp: 130 },
    });
    const crfDataRecordId = saved.body.data.crfDataRecordId as number;
    expect(await state()).toBe(1);
    const submitted = await save({
      subjectRecordId: patient.subjectRecordId,
      crfId: vitals,
      crfDataRecordId,
      version: 1,
      values: { sbp: 130, dbp: 80, hr: 70 },
      submit: true,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(await state()).toBe(2);
    const edited = await save({
      subjectRecordId: patient.subjectRecordId,
      crfId: vitals,
      crfDataRecordId,
      version: 2,
      values: { sbp: 132, dbp: 80, hr: 70 },
      reason: '抄录错误',
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(await state()).toBe(2);
    const opened = await t.call(admin, 'POST', '/api/business/doubt/open', {
      crfDataRecordId,
      itemName: 'hr',
      doubtDescription: '请核实心率',
    });
    expect(await state()).toBe(9);
    await t.call(admin, 'PUT', '/api/business/doubt/close', { doubtId: opened.body.data.doubtId, content: '已核实' });
    expect(await state()).toBe(2);
  });

  it('CRF-17: the detail holds crf (option with identify fields and cols), subject, subjectRecord, subjectState, crfDataRecord, crfDataRecords and crfDoubts', async () => {
    const body = multipart({ studyId: String(studyId) }, [
      {
        fileName: 'ocr.json',
        data: JSON.stringify({
          title: '化验单识别',
          option: { cols: 2, identifyId: 3, identifyType: 1, identifyIndex: 0 },
          children: [{ name: 'wbc', title: '白细胞', type: 'input', option: {}, children: [] }],
        }),
      },
    ]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/system/crf',
      headers: { ...body.headers, authorization: `Bearer ${admin}` },
      payload: body.payload,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const list = (await t.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data;
    const crfId = list.find((c: { title: string }) => c.title === '化验单识别').id as number;
    const saved = await save({ subjectRecordId: subject.subjectRecordId, crfId, version: 0, values: { wbc: '6.1' } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const crfDataRecordId = saved.body.data.crfDataRecordId as number;
    const opened = await t.call(admin, 'POST', '/api/business/doubt/open', {
      crfDataRecordId,
      itemName: 'wbc',
      doubtDescription: '请核实',
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);

    const detail = (
      await t.call(
        admin,
        'GET',
        `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${crfId}&crfDataRecordId=${crfDataRecordId}`,
      )
    ).body.data;
    expect(detail.crf).toMatchObject({
      id: crfId,
      title: '化验单识别',
      option: { cols: 2, identifyId: 3, identifyType: 1, identifyIndex: 0 },
    });
    expect(detail.subject).toMatchObject({
      id: expect.any(Number),
      studyId,
      subjectName: '周八',
      identificationCode: expect.any(String),
      qrCode: expect.any(String),
      openId: null,
    });
    expect(detail.subjectRecord).toMatchObject({ id: subject.subjectRecordId, creater: expect.any(String) });
    expect(detail.subjectRecord.creater).not.toBe('');
    expect(detail.subjectState).toMatchObject({ crfId, subjectRecordId: subject.subjectRecordId });
    expect(detail.crfDataRecord).toMatchObject({ id: crfDataRecordId });
    expect(detail.crfDataRecords).toEqual([expect.objectContaining({ crfDataRecordId })]);
    expect(detail.crfDoubts).toEqual([
      expect.objectContaining({
        itemName: 'wbc',
        groupName: null,
        groupIndex: null,
        doubtId: opened.body.data.doubtId,
      }),
    ]);
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
    // The ≥180 warning became a system query (raised by its subscriber after commit), so the form shows 存在质疑 (9).
    await t.ctx.events.drain();
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
    await t.ctx.events.drain();
    const trail = (await t.call(admin, 'GET', `/api/business/crf/audit?crfDataRecordId=${recordId}&itemName=sbp`)).body
      .data;
    // 150 no longer raises the ≥180 check: the system closed its query, in the item's history too.
    expect(trail[0]).toMatchObject({
      action: 'doubt.system_close',
      userName: '系统',
      reason: '数据已修正，系统自动关闭',
    });
    const history = trail.filter((row: { action: string }) => row.action === 'item.update');
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

  it('the engine decides: a new value for a hidden item is refused, calculations are recomputed on the server', async () => {
    const demographics = crfIds['人口学资料']!;
    const first = { subjectRecordId: subject.subjectRecordId, crfId: demographics, version: 0 };
    const values = { sex: '1', birth: '1958-03-02', height: 170, weight: 72.25, bmi: 99 };
    const hidden = await save({ ...first, values: { ...values, smoke: '0', smoke_years: 30 } });
    expect(hidden.status).toBe(400);
    expect(hidden.body.data.errors).toEqual([
      expect.objectContaining({ itemName: 'smoke_years', message: expect.stringContaining('隐藏') }),
    ]);
    const res = await save({ ...first, values: { ...values, smoke: '1', smoke_years: 30 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const read = async () =>
      (await t.call(admin, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${demographics}`)).body.data
        .crfDataRecord;
    const detail = await read();
    expect(detail.values.bmi).not.toBe(99);
    expect(Number(detail.values.bmi)).toBeCloseTo(25, 0);
    // A stored value the writer's own change hides is cleared, as the form page clears it.
    const changed = await save({
      ...first,
      crfDataRecordId: detail.crfDataRecordId,
      version: detail.version,
      values: { ...detail.values, smoke: '0' },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await read()).values.smoke_years ?? null).toBeNull();
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

describe('SDV', () => {
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

describe('overview and home', () => {
  it('PRINT-09/PRINT-10: the overview holds the menu with childrens and every viewable form (title, option, items with type, option and children, values by record); crfId and crfDataRecordId narrow it; the home counts subjects and forms', async () => {
    const subject = await enrol({ subjectName: '冯二' });
    const saved = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: crfIds['生命体征']!,
      version: 0,
      values: { hr: 66 },
    });
    const overview = (await t.call(admin, 'GET', `/api/v3/business/overview/${subject.subjectRecordId}`)).body.data;
    expect(overview.subject.subjectName).toBe('冯二');
    expect(overview.menu.map((s: { title: string }) => s.title)).toEqual(['基线', '手术', '术后随访']);
    expect(overview.menu[0].childrens.length).toBeGreaterThan(0);
    const titles = overview.crfs.map((c: { title: string }) => c.title);
    for (const title of ['人口学资料', '生命体征', '实验室检查', '影像学检查', '手术记录', '术后随访']) {
      expect(titles).toContain(title);
    }
    const vitals = overview.crfs.find((c: { title: string }) => c.title === '生命体征');
    expect(vitals.option).toEqual(expect.any(Object));
    expect(vitals.definition.children[0]).toMatchObject({
      type: expect.any(String),
      option: expect.any(Object),
      children: expect.any(Array),
    });
    expect(Number(vitals.records[0].values.hr)).toBe(66);

    const one = (
      await t.call(
        admin,
        'GET',
        `/api/v3/business/overview/${subject.subjectRecordId}?crfId=${crfIds['生命体征']}&crfDataRecordId=${saved.body.data.crfDataRecordId}`,
      )
    ).body.data;
    expect(one.crfs.map((c: { title: string }) => c.title)).toEqual(['生命体征']);
    expect(one.crfs[0].records.map((r: { crfDataRecordId: number }) => r.crfDataRecordId)).toEqual([
      saved.body.data.crfDataRecordId,
    ]);
    const home = (await t.call(admin, 'GET', `/api/business/index?studyId=${studyId}`)).body.data;
    expect(home.subjects.total).toBeGreaterThan(3);
    expect(home.forms.incomplete).toBeGreaterThan(0);
    expect(home.enrolment[0]).toMatchObject({ count: expect.any(Number) });
  });
});
