import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleCrf, MSG, type CrfDefinition } from '@ecrf/core';
import { exportExcel, exportOdm } from '@ecrf/core/interop';
import { auditEvents, menus, studyPersonnel, studyRoles, users } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { nextSerialNumber } from './study.service.js';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.login()).token;
});
afterAll(() => t.close());

const REDCAP_HEADER =
  '"Variable / Field Name","Form Name","Section Header","Field Type","Field Label","Choices, Calculations, OR Slider Labels","Field Note","Text Validation Type OR Show Slider Number","Text Validation Min","Text Validation Max","Identifier?","Branching Logic (Show field only if...)","Required Field?","Custom Alignment","Question Number (surveys only)","Matrix Group Name","Matrix Ranking?","Field Annotation"';
const csvRow = (...cells: string[]) =>
  [...cells, ...Array(18 - cells.length).fill('')].map((c) => `"${c.replace(/"/g, '""')}"`).join(',');
const REDCAP = [
  REDCAP_HEADER,
  csvRow('record_id', 'screening', '', 'text', 'Record ID'),
  csvRow('sex', 'screening', '', 'radio', '性别', '1, 男 | 2, 女'),
  csvRow('pregnant', 'screening', '', 'yesno', '是否妊娠', '', '', '', '', '', '', "[sex] = '2'"),
  csvRow('comorb', 'screening', '', 'checkbox', '合并症', '1, 高血压 | 2, 糖尿病'),
].join('\n');

function simpleCrf(title: string, extra: Partial<CrfDefinition> = {}): CrfDefinition {
  return {
    title,
    option: {},
    children: [
      {
        name: 'vitals',
        title: '生命体征',
        type: 'section',
        option: {},
        children: [
          { name: 'sbp', title: '收缩压', type: 'int', option: { units: 'mmHg', required: true }, children: [] },
          { name: 'visit_date', title: '访视日期', type: 'date', option: {}, children: [] },
        ],
      },
    ],
    ...extra,
  } as CrfDefinition;
}

async function createStudy(token: string, code: string, name = `研究${code}`) {
  const res = await t.call(token, 'POST', '/api/business/study', {
    studyName: name,
    studyCode: code,
    diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.id as number;
}

async function upload(
  token: string,
  studyId: number,
  fileName: string,
  data: Buffer | string,
  url = '/api/system/crf',
) {
  const form = multipart({ studyId: String(studyId) }, [{ fileName, data }]);
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { ...form.headers, authorization: `Bearer ${token}` },
    payload: form.payload,
  });
  return { status: res.statusCode, body: res.json() };
}

/** A signed-in user holding the given system menus (and so their permissions). */
async function userWith(userName: string, menuCodes: string[]) {
  const menuIds = await Promise.all(
    menuCodes.map(async (code) => (await t.db.select().from(menus).where(eq(menus.code, code)))[0]!.menuId),
  );
  const role = await t.call(admin, 'POST', '/api/system/role', {
    roleName: `r${userName}`,
    roleKey: `r${userName}`,
    menuIds,
  });
  const user = await t.call(admin, 'POST', '/api/system/user', {
    userName,
    password: 'Passw0rd',
    name: `用户${userName.slice(-4)}`,
    deptId: 1,
    roleIds: [role.body.data.roleId],
  });
  await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, user.body.data.userId));
  return { token: (await t.login(userName, 'Passw0rd')).token, userId: user.body.data.userId as number };
}

const ALL_STUDY_MENUS = [
  'study.config',
  'study.crf',
  'study.crfStage',
  'study.role',
  'study.user',
  'study:add',
  'study:edit',
  'study:remove',
];

describe('studies', () => {
  it('STUDY-01/STUDY-07/STUDY-06: creates a study whose creator is staff with the 项目管理员 role; lists it as the creator’s study', async () => {
    const manager = await userWith('13100000001', ALL_STUDY_MENUS);
    const studyId = await createStudy(manager.token, 'LSS01', '腰椎管狭窄手术登记');
    const mine = await t.call(manager.token, 'GET', '/api/business/study/list?pageNum=1');
    expect(mine.body.data.total).toBe(1);
    expect(mine.body.data.list[0]).toMatchObject({
      id: studyId,
      studyName: '腰椎管狭窄手术登记',
      doubt: '1',
      enableSerialNumber: false,
      diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
      memberCount: 1,
      subjectCount: 0,
      myRole: { roleName: '项目管理员' },
    });
    expect(mine.body.data.list[0].baseConfig.map((f: { name: string }) => f.name)).toEqual([
      'identificationCode',
      'subjectName',
      'gender',
      'birth',
      'age',
      'mobile',
      'idNumber',
      'diseaseCode',
    ]);
    const other = await userWith('13100000002', ALL_STUDY_MENUS);
    expect((await t.call(other.token, 'GET', '/api/business/study/list')).body.data.total).toBe(0);
    expect((await t.call(other.token, 'GET', '/api/business/study/manage/list')).status).toBe(403);
    const all = await t.call(admin, 'GET', '/api/business/study/manage/list?studyName=腰椎');
    expect(all.body.data.list.map((s: { id: number }) => s.id)).toContain(studyId);
    expect(
      (await t.call(manager.token, 'POST', '/api/business/study', { studyName: '重复', studyCode: 'LSS01' })).status,
    ).toBe(409);
  });

  it('STUDY-06/STUDY-07/STUDY-11: edits the configuration and reads it back; refuses bad values', async () => {
    const studyId = await createStudy(admin, 'CFG01');
    const res = await t.call(admin, 'PUT', '/api/business/study', {
      id: studyId,
      description: '多中心前瞻性登记',
      displayCrfColumn: ['sbp'],
      signConfig: { enabled: true, meaning: '本人确认以上数据真实准确' },
      baseConfig: [{ name: 'mobile', header: '联系电话', display: true, required: true }],
      doubt: '0',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      description: '多中心前瞻性登记',
      displayCrfColumn: ['sbp'],
      doubt: '0',
      signConfig: { enabled: true },
    });
    expect(res.body.data.baseConfig.find((f: { name: string }) => f.name === 'mobile')).toEqual({
      name: 'mobile',
      header: '联系电话',
      display: true,
      required: true,
    });
    expect((await t.call(admin, 'GET', `/api/business/study/sign_config?studyId=${studyId}`)).body.data).toEqual({
      enabled: true,
      meaning: '本人确认以上数据真实准确',
    });
    expect(
      (
        await t.call(admin, 'PUT', '/api/business/study', {
          id: studyId,
          baseConfig: [{ name: 'shoeSize', header: 'x', display: true, required: true }],
        })
      ).status,
    ).toBe(400);
    expect((await t.call(admin, 'PUT', '/api/business/study', { id: studyId, studyCode: '中文' })).body.msg).toBe(
      '项目编号只能包含字母、数字、_ 和 -',
    );
  });

  it('STUDY-10: the doubt flag is switched and read', async () => {
    const studyId = await createStudy(admin, 'DBT01');
    expect((await t.call(admin, 'POST', '/api/business/study/doubt', { studyId, doubt: '0' })).status).toBe(200);
    expect((await t.call(admin, 'GET', `/api/business/study/doubt/${studyId}`)).body.data).toBe('0');
  });

  it('a study has a time zone (Asia/Shanghai unless set); an unknown zone is refused; a change is audited', async () => {
    const studyId = await createStudy(admin, 'TZ01');
    expect((await t.call(admin, 'GET', `/api/business/study/${studyId}`)).body.data.timeZone).toBe('Asia/Shanghai');
    const bad = await t.call(admin, 'PUT', '/api/business/study', { id: studyId, timeZone: 'Mars/Olympus' });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('时区无效');
    const set = await t.call(admin, 'PUT', '/api/business/study', { id: studyId, timeZone: 'Europe/Berlin' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.timeZone).toBe('Europe/Berlin');
    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.studyId, studyId));
    expect(
      audit.some((row) => row.itemName === 'timeZone' || JSON.stringify(row.newValue).includes('Europe/Berlin')),
    ).toBe(true);
  });

  it('STUDY-07/STUDY-29/STUDY-32: the study QR code is a PNG for staff; anyone else is told 您未参与该项目', async () => {
    const studyId = await createStudy(admin, 'QR01');
    const qr = await t.call(admin, 'GET', `/api/business/study/u_qr_code/${studyId}`);
    expect(qr.body.data.qrCode).toMatch(/^data:image\/png;base64,/);
    expect(qr.body.data.content).toMatch(new RegExp(`/project/${studyId}/home$`));
    const outsider = await userWith('13100000003', []);
    const refused = await t.call(outsider.token, 'GET', `/api/business/study/u_qr_code/${studyId}`);
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toBe('您未参与该项目');
  });

  it('STUDY-12: serial numbers: v1 and v2 enable, read with a preview, close; concurrent enrolments get consecutive codes without gaps', async () => {
    const studyId = await createStudy(admin, 'SN01');
    const enabled = await t.call(admin, 'PUT', '/api/v2/business/study/serial_number/enable', {
      studyId,
      prefix: 'LS-',
      digits: 4,
      scope: 'study',
    });
    expect(enabled.body.data).toMatchObject({ enableSerialNumber: true, prefix: 'LS-', digits: 4, preview: 'LS-0001' });
    expect(
      (await t.call(admin, 'PUT', `/api/v1/business/study/serial_number/close?studyId=${studyId}`)).body.data
        .enableSerialNumber,
    ).toBe(false);
    expect(
      (await t.call(admin, 'PUT', `/api/v1/business/study/serial_number/enable?studyId=${studyId}`)).body.data
        .enableSerialNumber,
    ).toBe(true);
    expect(
      (await t.call(admin, 'GET', `/api/v2/business/study/serial_number?studyId=${studyId}`)).body.data.preview,
    ).toBe('LS-0001');
    const codes = await Promise.all(
      Array.from({ length: 12 }, () => t.db.transaction((tx) => nextSerialNumber(tx, studyId, null))),
    );
    expect([...codes].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `LS-${String(i + 1).padStart(4, '0')}`));
    expect(
      (await t.call(admin, 'GET', `/api/v1/business/study/serial_number?studyId=${studyId}`)).body.data.preview,
    ).toBe('LS-0013');
    expect(
      (await t.call(admin, 'PUT', '/api/v2/business/study/serial_number/enable', { studyId, digits: 11 })).status,
    ).toBe(400);
  });

  it('STUDY-13: follow trigger: v1 one trigger and v2 a list, the CRF must belong to the study', async () => {
    const studyId = await createStudy(admin, 'FT01');
    const crf = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('手术记录') });
    const crfId = crf.body.data.crfs[0].id;
    expect(
      (
        await t.call(admin, 'PUT', '/api/v1/business/study/follow_trigger', {
          studyId,
          enabled: true,
          crfId,
          itemName: 'visit_date',
          offsetDays: 90,
        })
      ).status,
    ).toBe(200);
    expect((await t.call(admin, 'GET', `/api/v1/business/study/follow_trigger?studyId=${studyId}`)).body.data).toEqual({
      enabled: true,
      crfId,
      itemName: 'visit_date',
      offsetDays: 90,
    });
    const v2 = await t.call(admin, 'PUT', '/api/v2/business/study/follow_trigger', {
      studyId,
      triggers: [
        { enabled: true, crfId, itemName: 'visit_date', offsetDays: 90 },
        { enabled: true, crfId, itemName: 'visit_date', offsetDays: 365 },
      ],
    });
    expect(v2.status).toBe(200);
    expect(
      (await t.call(admin, 'GET', `/api/v2/business/study/follow_trigger?studyId=${studyId}`)).body.data.triggers,
    ).toHaveLength(2);
    expect(
      (
        await t.call(admin, 'PUT', '/api/v1/business/study/follow_trigger', {
          studyId,
          enabled: true,
          crfId: 99999,
          itemName: 'x',
          offsetDays: 1,
        })
      ).body.msg,
    ).toBe('随访触发表单不属于该项目');
  });

  it("the study settings' follow trigger refuses another study's form (400, nothing saved)", async () => {
    const studyId = await createStudy(admin, 'FT02');
    const otherStudy = await createStudy(admin, 'FT03');
    const foreign = await t.call(admin, 'POST', '/api/system/crf', {
      studyId: otherStudy,
      definition: simpleCrf('外院表单'),
    });
    const foreignCrfId = foreign.body.data.crfs[0].id as number;
    const trigger = { enabled: true, crfId: foreignCrfId, itemName: 'visit_date', offsetDays: 30 };
    for (const crfId of [foreignCrfId, 99999]) {
      const res = await t.call(admin, 'PUT', '/api/business/study', {
        id: studyId,
        followTrigger: { ...trigger, crfId },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, msg: '随访触发表单不属于该项目', data: null });
    }
    expect(
      (await t.call(admin, 'GET', `/api/v2/business/study/follow_trigger?studyId=${studyId}`)).body.data.triggers,
    ).toEqual([]);
    const own = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('手术记录') });
    const ownCrfId = own.body.data.crfs[0].id as number;
    const saved = await t.call(admin, 'PUT', '/api/business/study', {
      id: studyId,
      followTrigger: { ...trigger, crfId: ownCrfId },
    });
    expect(saved.status).toBe(200);
    expect(
      (await t.call(admin, 'GET', `/api/v2/business/study/follow_trigger?studyId=${studyId}`)).body.data.triggers,
    ).toEqual([{ ...trigger, crfId: ownCrfId }]);
  });

  it('STUDY-07: deletes a study (kept in the database as deleted) with its permission', async () => {
    const studyId = await createStudy(admin, 'DEL01');
    expect((await t.call(admin, 'DELETE', `/api/business/study/${studyId}`)).body.msg).toBe('删除成功');
    expect((await t.call(admin, 'GET', `/api/business/study/${studyId}`)).status).toBe(404);
  });
});

describe('CRF files and versions', () => {
  let studyId: number;
  beforeAll(async () => {
    studyId = await createStudy(admin, 'CRF01');
  });

  it('STUDY-17: uploads JSON, Excel, REDCap and ODM files, each linted and stored as a CRF at version 1', async () => {
    const json = await upload(admin, studyId, 'example.json', JSON.stringify(exampleCrf()));
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(json.body.data.crfs).toEqual([{ id: expect.any(Number), title: exampleCrf().title, version: 1 }]);
    const excel = await upload(
      admin,
      studyId,
      'vitals.xlsx',
      Buffer.from(await exportExcel([simpleCrf('生命体征表')])),
    );
    expect(excel.body.data.crfs[0]).toMatchObject({ title: '生命体征表', version: 1 });
    const redcap = await upload(admin, studyId, 'dictionary.csv', REDCAP);
    expect(redcap.status, JSON.stringify(redcap.body)).toBe(200);
    expect(redcap.body.data.crfs[0].title).toBe('screening');
    const odm = await upload(admin, studyId, 'labs.xml', exportOdm([simpleCrf('实验室检查')]));
    expect(odm.body.data.crfs[0]).toMatchObject({ title: '实验室检查', version: 1 });
    const list = await t.call(admin, 'GET', `/api/system/crfs?studyId=${studyId}&pageSize=20`);
    expect(list.body.data.total).toBe(4);
    expect(list.body.data.list.map((c: { source: string }) => c.source).sort()).toEqual([
      'excel',
      'json',
      'odm',
      'redcap',
    ]);
    const example = list.body.data.list.find((c: { source: string }) => c.source === 'json');
    expect(example.itemCount).toBeGreaterThan(20);
  });

  it('STUDY-17: a REDCap dictionary saved by Excel on a Chinese Windows (GB18030) is read with its Chinese intact', async () => {
    const gbk = Buffer.concat([
      Buffer.from(
        `${REDCAP_HEADER}\n${csvRow('record_id', 'gbk_form', '', 'text', 'Record ID')}\n"sex","gbk_form","","radio","`,
      ),
      Buffer.from('d0d4b1f0', 'hex'), // 性别
      Buffer.from('","1, '),
      Buffer.from('c4d0', 'hex'), // 男
      Buffer.from(' | 2, F"\n'),
    ]);
    const res = await upload(admin, studyId, 'gbk.csv', gbk);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.stringify(res.body.data.warnings)).toContain('GBK/GB18030');
    const exported = await t.app.inject({
      method: 'POST',
      url: '/api/system/crf/export',
      payload: { crfId: res.body.data.crfs[0].id, format: 'json' },
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.body).toContain('性别');
    expect(exported.body).toContain('男');
  });

  it('STUDY-17: refuses a definition with errors whole, listing every error with its path', async () => {
    const broken = simpleCrf('坏表单');
    broken.children[0]!.children.push({ name: 'sbp', title: '重复', type: 'int', option: {}, children: [] } as never);
    broken.children[0]!.children.push({
      name: 'calc1',
      title: '计算',
      type: 'real',
      option: { calc: 'missing_item * 2' },
      children: [],
    } as never);
    const res = await upload(admin, studyId, 'broken.json', JSON.stringify(broken));
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('CRF定义有误，未导入');
    expect(res.body.data.errors.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(res.body.data.errors)).toContain('missing_item');
    expect((await t.call(admin, 'GET', `/api/system/crfs?studyId=${studyId}&title=坏表单`)).body.data.total).toBe(0);
    const unknown = await upload(admin, studyId, 'notes.txt', 'hello');
    expect(unknown.body.msg).toMatch(/不支持的文件格式/);
  });

  it('STUDY-18: uploading a known title adds a version; old versions stay readable', async () => {
    const first = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('随访表') });
    const crfId = first.body.data.crfs[0].id;
    const changed = simpleCrf('随访表');
    changed.children[0]!.children.push({
      name: 'dbp',
      title: '舒张压',
      type: 'int',
      option: {},
      children: [],
    } as never);
    const unconfirmed = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: changed });
    expect(unconfirmed.status).toBe(409);
    expect(unconfirmed.body.msg).toBe('以下CRF已存在，上传将生成新版本，请确认：随访表');
    const second = await t.call(admin, 'POST', '/api/system/crf', {
      studyId,
      definition: changed,
      onExisting: { 随访表: 'version' },
    });
    expect(second.body.data.crfs[0]).toEqual({ id: crfId, title: '随访表', version: 2 });
    const latest = await t.call(admin, 'GET', `/api/system/crf/${crfId}`);
    expect(latest.body.data.version).toBe(2);
    expect(latest.body.data.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const v1 = await t.call(admin, 'GET', `/api/system/crf/${crfId}?version=1`);
    expect(JSON.stringify(v1.body.data.definition)).not.toContain('dbp');
  });

  it('STUDY-17: uploads several files at once, each judged on its own', async () => {
    const form = multipart({ studyId: String(studyId) }, [
      { fileName: 'a.json', data: JSON.stringify(simpleCrf('批量A')) },
      { fileName: 'b.json', data: '{"title": ""}' },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/system/crf/multi',
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    const body = res.json();
    expect(body.msg).toBe('部分文件未导入');
    expect(body.data[0]).toMatchObject({ fileName: 'a.json', ok: true });
    expect(body.data[1]).toMatchObject({ fileName: 'b.json', ok: false });
    expect(body.data[1].errors.length).toBeGreaterThan(0);
  });

  it('exports JSON, Excel and ODM, and serves the blank Excel template', async () => {
    const crfId = (await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('导出表') })).body
      .data.crfs[0].id;
    for (const [format, type, magic] of [
      ['json', 'application/json', '{'],
      ['excel', 'spreadsheetml', 'PK'],
      ['odm', 'application/xml', '<?xml'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/system/crf/export',
        headers: { authorization: `Bearer ${admin}` },
        payload: { crfId, format },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain(type);
      expect(res.headers['content-disposition']).toContain(encodeURIComponent('导出表-v1'));
      expect(res.rawPayload.subarray(0, magic.length).toString()).toBe(magic);
    }
    const template = await t.app.inject({
      method: 'GET',
      url: '/api/system/crf/template',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(template.rawPayload.subarray(0, 2).toString()).toBe('PK');
  });

  it('STUDY-17: exports a CRF as a REDCap data dictionary that uploads back as the same form', async () => {
    const crfId = (await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('REDCap导出表') }))
      .body.data.crfs[0].id;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/system/crf/export',
      headers: { authorization: `Bearer ${admin}` },
      payload: { crfId, format: 'redcap' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toContain(encodeURIComponent('REDCap导出表-v1.csv'));
    const csv = res.rawPayload.toString('utf8');
    expect(csv.startsWith('\uFEFF"Variable / Field Name","Form Name",')).toBe(true);
    expect(csv).toContain('收缩压');
    // The title comes back (our annotation tag): the upload is the same CRF's next version.
    const form = multipart({ studyId: String(studyId), onExisting: JSON.stringify({ REDCap导出表: 'version' }) }, [
      { fileName: 'dictionary.csv', data: res.rawPayload },
    ]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/system/crf',
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    const back = { status: uploaded.statusCode, body: uploaded.json() };
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.data.crfs[0]).toMatchObject({ id: crfId, title: 'REDCap导出表', version: 2 });
    const imported = await t.call(admin, 'GET', `/api/system/crf/${back.body.data.crfs[0].id}`);
    const [section] = imported.body.data.definition.children;
    expect(section).toMatchObject({ type: 'section', title: '生命体征' });
    expect(section.children.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual([
      'sbp:int',
      'visit_date:date',
    ]);
    expect(section.children[0].option).toMatchObject({ required: 1, description: '单位：mmHg' });
  });

  it('STUDY-17/STUDY-22: deletes a CRF without data, and removes it from stages', async () => {
    const crfId = (await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('待删表') })).body
      .data.crfs[0].id;
    const stage = await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage', { studyId, name: '临时' });
    await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage/crf/import', {
      crfStageId: stage.body.data.id,
      crfIds: [crfId],
    });
    expect((await t.call(admin, 'DELETE', `/api/system/crf?studyId=${studyId}&crfId=${crfId}`)).body.msg).toBe(
      '删除成功',
    );
    expect(
      (await t.call(admin, 'GET', `/api/business/crf_menu/crf_stage/crfs?id=${stage.body.data.id}`)).body.data,
    ).toEqual([]);
    expect((await t.call(admin, 'GET', `/api/system/crf/${crfId}`)).status).toBe(403);
  });
});

describe('ECRF stages and diseases', () => {
  it('STUDY-19/STUDY-20/STUDY-21/STUDY-22: builds an ordered stage tree with single and repeatable forms', async () => {
    const studyId = await createStudy(admin, 'STG01');
    const a = (await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('基线表') })).body.data
      .crfs[0].id;
    const b = (await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('随访表') })).body.data
      .crfs[0].id;
    const baseline = (
      await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage', { studyId, name: '基线', orderNum: 1 })
    ).body.data.id;
    const follow = (
      await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage', { studyId, name: '随访', orderNum: 2 })
    ).body.data.id;
    const month3 = (
      await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage', { studyId, parentId: follow, name: '术后3月' })
    ).body.data.id;
    await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage/crf/import', {
      crfStageId: baseline,
      crfIds: [a],
      repeat: 1,
    });
    await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage/crf/import', {
      crfStageId: month3,
      crfIds: [b, a],
      repeat: 0,
    });
    await t.call(admin, 'PUT', '/api/business/crf_menu/crf_stage/crf', { crfStageId: month3, crfId: a, repeat: 1 });
    const tree = (await t.call(admin, 'GET', `/api/business/crf_menu/crf_stages?studyId=${studyId}`)).body.data;
    expect(tree.map((s: { name: string }) => s.name)).toEqual(['基线', '随访']);
    expect(tree[0].crfs).toEqual([{ crfId: a, title: '基线表', repeat: 1, orderNum: 1 }]);
    expect(tree[1].children[0]).toMatchObject({
      name: '术后3月',
      crfs: [
        { crfId: b, repeat: 0 },
        { crfId: a, repeat: 1 },
      ],
    });
    expect((await t.call(admin, 'DELETE', `/api/business/crf_menu/crf_stage?id=${follow}`)).body.msg).toBe(
      '存在下级阶段，不允许删除',
    );
    expect(
      (await t.call(admin, 'PUT', '/api/business/crf_menu/crf_stage', { id: follow, name: '随访', parentId: month3 }))
        .body.msg,
    ).toBe('上级阶段不能是自己或下级阶段');
    await t.call(admin, 'DELETE', `/api/business/crf_menu/crf_stage/crf?crfStageId=${month3}&crfId=${b}`);
    expect(
      (await t.call(admin, 'GET', `/api/business/crf_menu/crf_stage/crfs?id=${month3}`)).body.data.map(
        (c: { crfId: number }) => c.crfId,
      ),
    ).toEqual([a]);
    const foreign = await createStudy(admin, 'STG02');
    const foreignCrf = (
      await t.call(admin, 'POST', '/api/system/crf', { studyId: foreign, definition: simpleCrf('外部表') })
    ).body.data.crfs[0].id;
    expect(
      (
        await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage/crf/import', {
          crfStageId: baseline,
          crfIds: [foreignCrf],
        })
      ).body.msg,
    ).toBe('CRF不属于该项目');
  });

  it('STUDY-23/STUDY-24/STUDY-25/STUDY-26: diseases with their own CRF sets in multi-disease mode', async () => {
    const studyId = await createStudy(admin, 'DIS01');
    const crfId = (await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('颈椎表') })).body
      .data.crfs[0].id;
    expect(
      (await t.call(admin, 'PUT', '/api/business/study_disease/multi_disease', { studyId, multiDisease: true })).status,
    ).toBe(200);
    const disease = (
      await t.call(admin, 'POST', '/api/business/study_disease/disease', {
        studyId,
        diseaseName: '颈椎病',
        diseaseCode: 'CSM',
      })
    ).body.data;
    expect(
      (
        await t.call(admin, 'POST', '/api/business/study_disease/disease', {
          studyId,
          diseaseName: '重复',
          diseaseCode: 'CSM',
        })
      ).status,
    ).toBe(409);
    await t.call(admin, 'PUT', `/api/business/study_disease/disease/crf?studyDiseaseId=${disease.id}`, {
      crfVO: [crfId],
    });
    expect((await t.call(admin, 'GET', `/api/business/study_disease/disease/crf/${disease.id}`)).body.data).toEqual([
      crfId,
    ]);
    const all = (await t.call(admin, 'GET', `/api/business/study_disease/${studyId}`)).body.data;
    expect(all.multiDisease).toBe(true);
    expect(all.diseases.map((d: { diseaseCode: string }) => d.diseaseCode)).toEqual(['LSS', 'CSM']);
    await t.call(admin, 'PUT', '/api/business/study_disease/disease', {
      id: disease.id,
      diseaseName: '脊髓型颈椎病',
      diseaseCode: 'CSM',
    });
    await t.call(admin, 'DELETE', `/api/business/study_disease/disease?id=${disease.id}`);
    expect((await t.call(admin, 'GET', `/api/business/study_disease/${studyId}`)).body.data.diseases).toHaveLength(1);
  });
});

describe('study roles and staff', () => {
  it('STUDY-14/STUDY-15: study roles carry button and per-CRF permissions from the tree; 项目管理员 gains new CRFs', async () => {
    const studyId = await createStudy(admin, 'ROLE01');
    const crfId = (await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('录入表') })).body
      .data.crfs[0].id;
    const tree = (await t.call(admin, 'GET', `/api/system/studyRole/tree?studyId=${studyId}`)).body.data;
    expect(tree[0].children.map((c: { key: string }) => c.key)).toContain('btn:business.crf.save');
    expect(tree[1].children[0]).toMatchObject({ key: `crf:${crfId}`, title: '录入表' });
    expect(tree[1].children[0].children.map((c: { key: string }) => c.key)).toEqual(
      ['view', 'save', 'submit', 'sign', 'sdv', 'doubt'].map((a) => `crf:${crfId}:${a}`),
    );
    const roles = (await t.call(admin, 'GET', `/api/system/studyRoles?studyId=${studyId}`)).body.data;
    expect(roles[0]).toMatchObject({ roleName: '项目管理员', memberCount: 1 });
    expect(roles[0].permissions).toContain(`crf:${crfId}:sdv`);
    const created = await t.call(admin, 'POST', '/api/system/studyRole', {
      studyId,
      roleName: 'CRC',
      permissions: ['btn:business.crf.save', `crf:${crfId}:view`, `crf:${crfId}:save`],
    });
    expect(created.body.data.permissions).toEqual(['btn:business.crf.save', `crf:${crfId}:view`, `crf:${crfId}:save`]);
    expect(
      (
        await t.call(admin, 'POST', '/api/system/studyRole', {
          studyId,
          roleName: 'x',
          permissions: ['crf:99999:view'],
        })
      ).body.msg,
    ).toMatch(/未知的权限/);
    expect(
      (await t.call(admin, 'POST', '/api/system/studyRole', { studyId, roleName: 'CRC', permissions: [] })).status,
    ).toBe(409);
    const updated = await t.call(admin, 'PUT', '/api/system/studyRole', {
      id: created.body.data.id,
      roleName: 'CRC研究协调员',
      permissions: [],
    });
    expect(updated.body.data).toMatchObject({ roleName: 'CRC研究协调员', permissions: [] });
    expect((await t.call(admin, 'DELETE', `/api/system/studyRole?id=${roles[0].id}`)).body.msg).toBe(
      '该角色下仍有项目人员，不能删除',
    );
    expect((await t.call(admin, 'DELETE', `/api/system/studyRole?id=${created.body.data.id}`)).status).toBe(200);
  });

  it('STUDY-16: adds staff from the uncommitted users, changes a role, removes them; the study keeps one full manager', async () => {
    const studyId = await createStudy(admin, 'STAFF01');
    const nurse = await userWith('13100000010', []);
    const uncommitted = (
      await t.call(admin, 'GET', `/api/business/study_personnel/uncommitted?studyId=${studyId}&name=用户0010`)
    ).body.data;
    expect(uncommitted.map((u: { userId: number }) => u.userId)).toEqual([nurse.userId]);
    const role = (
      await t.call(admin, 'POST', '/api/system/studyRole', {
        studyId,
        roleName: '研究护士',
        permissions: ['btn:business.crf.save'],
      })
    ).body.data;
    expect(
      (
        await t.call(admin, 'POST', '/api/business/study_personnel', {
          studyId,
          userIds: [nurse.userId],
          studyRoleId: role.id,
          deptId: 1,
        })
      ).body.msg,
    ).toBe('添加成功');
    expect(
      (
        await t.call(admin, 'POST', '/api/business/study_personnel', {
          studyId,
          userIds: [nurse.userId],
          studyRoleId: role.id,
        })
      ).status,
    ).toBe(409);
    const list = (await t.call(admin, 'GET', `/api/business/study_personnel/list?studyId=${studyId}`)).body.data;
    expect(list.total).toBe(2);
    const member = list.list.find((m: { userId: number }) => m.userId === nurse.userId);
    expect(member).toMatchObject({ roleName: '研究护士', deptName: '根机构', name: '用户0010' });
    expect((await t.call(nurse.token, 'GET', '/api/business/study/list')).body.data.list[0]).toMatchObject({
      id: studyId,
      myRole: { roleName: '研究护士' },
    });
    const manager = list.list.find((m: { userId: number }) => m.userId !== nurse.userId);
    expect(
      (await t.call(admin, 'PUT', '/api/business/study_personnel', { id: manager.id, studyRoleId: role.id })).body.msg,
    ).toBe('项目至少需要保留一名拥有全部权限的人员');
    expect((await t.call(admin, 'DELETE', `/api/business/study_personnel?id=${manager.id}`)).status).toBe(409);
    expect((await t.call(admin, 'DELETE', `/api/business/study_personnel?id=${member.id}`)).body.msg).toBe('移除成功');
    expect((await t.call(nurse.token, 'GET', '/api/business/study/list')).body.data.total).toBe(0);
    expect(await t.db.select().from(studyPersonnel).where(eq(studyPersonnel.userId, nurse.userId))).toHaveLength(0);
  });
});

describe('isolation', () => {
  it('a signed-in non-member, holding every study permission, is refused by every study-scoped route', async () => {
    const studyId = await createStudy(admin, 'ISO01');
    const crfId = (await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('隔离表') })).body
      .data.crfs[0].id;
    const stageId = (await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage', { studyId, name: '基线' })).body
      .data.id;
    const roleId = (await t.call(admin, 'GET', `/api/system/studyRoles?studyId=${studyId}`)).body.data[0].id;
    const memberId = (await t.call(admin, 'GET', `/api/business/study_personnel/list?studyId=${studyId}`)).body.data
      .list[0].id;
    const diseaseId = (await t.call(admin, 'GET', `/api/business/study_disease/${studyId}`)).body.data.diseases[0].id;
    const outsider = await userWith('13100000020', ALL_STUDY_MENUS);

    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/business/study/${studyId}`],
      ['PUT', '/api/business/study', { id: studyId, studyName: '越权' }],
      ['DELETE', `/api/business/study/${studyId}`],
      ['GET', `/api/business/study/doubt/${studyId}`],
      ['POST', '/api/business/study/doubt', { studyId, doubt: '0' }],
      ['GET', `/api/business/study/sign_config?studyId=${studyId}`],
      ['GET', `/api/v1/business/study/serial_number?studyId=${studyId}`],
      ['PUT', `/api/v1/business/study/serial_number/enable?studyId=${studyId}`],
      ['PUT', '/api/v2/business/study/serial_number/enable', { studyId, prefix: 'X' }],
      ['GET', `/api/v1/business/study/follow_trigger?studyId=${studyId}`],
      ['PUT', '/api/v2/business/study/follow_trigger', { studyId, triggers: [] }],
      ['GET', `/api/system/studyRoles?studyId=${studyId}`],
      ['GET', `/api/system/studyRole/tree?studyId=${studyId}`],
      ['GET', `/api/system/studyRole?id=${roleId}`],
      ['POST', '/api/system/studyRole', { studyId, roleName: '越权', permissions: [] }],
      ['PUT', '/api/system/studyRole', { id: roleId, roleName: '越权', permissions: [] }],
      ['DELETE', `/api/system/studyRole?id=${roleId}`],
      ['GET', `/api/business/study_personnel/list?studyId=${studyId}`],
      ['GET', `/api/business/study_personnel/uncommitted?studyId=${studyId}`],
      ['POST', '/api/business/study_personnel', { studyId, userIds: [outsider.userId], studyRoleId: roleId }],
      ['PUT', '/api/business/study_personnel', { id: memberId, studyRoleId: roleId }],
      ['DELETE', `/api/business/study_personnel?id=${memberId}`],
      ['GET', `/api/system/crfs?studyId=${studyId}`],
      ['GET', `/api/system/crf/list?studyId=${studyId}`],
      ['GET', `/api/system/crf/${crfId}`],
      ['POST', '/api/system/crf', { studyId, definition: simpleCrf('越权表') }],
      ['POST', '/api/system/crf/export', { crfId, format: 'json' }],
      ['DELETE', `/api/system/crf?studyId=${studyId}&crfId=${crfId}`],
      ['GET', `/api/business/crf_menu/crf_stages?studyId=${studyId}`],
      ['GET', `/api/business/crf_menu/crf_stage?id=${stageId}`],
      ['POST', '/api/business/crf_menu/crf_stage', { studyId, name: '越权' }],
      ['PUT', '/api/business/crf_menu/crf_stage', { id: stageId, name: '越权' }],
      ['DELETE', `/api/business/crf_menu/crf_stage?id=${stageId}`],
      ['GET', `/api/business/crf_menu/crf_stage/crfs?id=${stageId}`],
      ['POST', '/api/business/crf_menu/crf_stage/crf/import', { crfStageId: stageId, crfIds: [crfId] }],
      ['PUT', '/api/business/crf_menu/crf_stage/crf', { crfStageId: stageId, crfId, repeat: 0 }],
      ['DELETE', `/api/business/crf_menu/crf_stage/crf?crfStageId=${stageId}&crfId=${crfId}`],
      ['GET', `/api/business/study_disease/${studyId}`],
      ['PUT', '/api/business/study_disease/multi_disease', { studyId, multiDisease: true }],
      ['POST', '/api/business/study_disease/disease', { studyId, diseaseName: 'x', diseaseCode: 'X' }],
      ['PUT', '/api/business/study_disease/disease', { id: diseaseId, diseaseName: 'x', diseaseCode: 'X' }],
      ['DELETE', `/api/business/study_disease/disease?id=${diseaseId}`],
      ['GET', `/api/business/study_disease/disease/crf/${diseaseId}`],
      ['PUT', `/api/business/study_disease/disease/crf?studyDiseaseId=${diseaseId}`, { crfVO: [] }],
    ];
    for (const [method, url, body] of routes) {
      const res = await t.call(outsider.token, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.msg).toBe(MSG.forbidden);
    }
    const form = multipart({ studyId: String(studyId) }, [
      { fileName: 'x.json', data: JSON.stringify(simpleCrf('越权上传')) },
    ]);
    const multi = await t.app.inject({
      method: 'POST',
      url: '/api/system/crf/multi',
      headers: { ...form.headers, authorization: `Bearer ${outsider.token}` },
      payload: form.payload,
    });
    expect(multi.statusCode).toBe(403);
    // Nothing the outsider tried was written.
    expect((await t.call(admin, 'GET', `/api/business/study/${studyId}`)).body.data.studyName).not.toBe('越权');
    expect((await t.call(admin, 'GET', `/api/system/crfs?studyId=${studyId}`)).body.data.total).toBe(1);
    expect(await t.db.select().from(studyRoles).where(eq(studyRoles.roleName, '越权'))).toHaveLength(0);
  });

  it('a member without the area permission can read but not change the study setup', async () => {
    const studyId = await createStudy(admin, 'ISO02');
    const reader = await userWith('13100000021', []);
    const role = (await t.call(admin, 'POST', '/api/system/studyRole', { studyId, roleName: '只读', permissions: [] }))
      .body.data;
    await t.call(admin, 'POST', '/api/business/study_personnel', {
      studyId,
      userIds: [reader.userId],
      studyRoleId: role.id,
    });
    expect((await t.call(reader.token, 'GET', `/api/business/study/${studyId}`)).status).toBe(200);
    expect((await t.call(reader.token, 'GET', `/api/system/crfs?studyId=${studyId}`)).status).toBe(200);
    expect(
      (await t.call(reader.token, 'POST', '/api/system/crf', { studyId, definition: simpleCrf('无权上传') })).status,
    ).toBe(403);
    expect(
      (await t.call(reader.token, 'POST', '/api/business/crf_menu/crf_stage', { studyId, name: '无权' })).status,
    ).toBe(403);
    expect((await t.call(reader.token, 'PUT', '/api/business/study', { id: studyId, studyName: '无权' })).status).toBe(
      403,
    );
  });
});
