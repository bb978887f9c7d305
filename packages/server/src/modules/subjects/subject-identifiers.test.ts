import fs from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, crfKey, residentIdCheckChar, STUDY_ADMIN_ROLE } from '@ecrf/core';
import { auditEvents, studyRoles, subjects } from '../../db/schema/index.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { addStudyMember } from '../../test/study-member.js';
import { openDemoStudy } from '../../test/demo.js';

/**
 * Patient identifiers under PIPL: the ID number is stored encrypted with a keyed hash for the
 * per-study uniqueness check; members without 查看患者身份信息 see names, birth dates, mobiles and
 * ID numbers masked in every answer that carries a patient; an edit never erases what it leaves out.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let otherStudyId: number;
const crfIds: Record<string, number> = {};
const tokens = { masked: '', clear: '', studyAdmin: '' };

/** A valid resident ID number from its first 17 digits. */
const idOf = (body: string) => body + residentIdCheckChar(body);
const ID = '11010519491231002X';
const ID_MASK = '110105********002X';
const MOBILE = '13800000002';
const MOBILE_MASK = '138****0002';

const member = (userName: string, role: number | { permissions: string[] }) =>
  addStudyMember(t, admin, studyId, userName, typeof role === 'number' ? { studyRoleId: role } : role);

async function enrol(token: string, body: object, study = studyId) {
  return t.call(token, 'POST', '/api/business/subject', {
    studyId: study,
    subjectName: '张三',
    gender: 1,
    diseaseCode: 'LSS',
    ...body,
  });
}

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
  const created = await t.call(admin, 'POST', '/api/business/study', {
    studyName: '第二项目',
    studyCode: 'S2',
    diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  otherStudyId = created.body.data.id;

  const everyForm = Object.values(crfIds).flatMap((id) => [crfKey(id, 'view'), crfKey(id, 'save')]);
  const work = [buttonKey('business.subject.add'), buttonKey('business.subject.edit'), ...everyForm];
  tokens.masked = await member('13300000001', { permissions: work });
  tokens.clear = await member('13300000002', { permissions: [...work, buttonKey('business.subject.identifiers')] });
  const [adminRole] = await t.db
    .select()
    .from(studyRoles)
    .where(and(eq(studyRoles.studyId, studyId), eq(studyRoles.roleName, STUDY_ADMIN_ROLE)));
  tokens.studyAdmin = await member('13300000003', adminRole!.id);
});
afterAll(() => t.close());

describe('patient identifiers (PIPL)', () => {
  it('SUBJ-03/SUBJ-21: the ID number is stored as AES-GCM ciphertext with a keyed hash, never in clear', async () => {
    const res = await enrol(admin, { idNumber: ID.toLowerCase(), mobile: MOBILE });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ idNumber: ID, mobile: MOBILE, identifiersMasked: false });
    const [row] = await t.db.select().from(subjects).where(eq(subjects.id, res.body.data.id));
    expect(row!.idNumberEnc).toMatch(/^v1\.[^.]+\.[^.]+\.[^.]+$/);
    expect(row!.idNumberEnc).not.toContain('110105');
    expect(row!.idNumberHash).toBe(t.ctx.fieldCrypto.hash(ID));
    expect(t.ctx.fieldCrypto.decrypt(row!.idNumberEnc!)).toBe(ID);
    expect(JSON.stringify(row)).not.toContain(ID);
    // The audit row shows that an ID number and a mobile were given, not which.
    const [created] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.subjectRecordId, res.body.data.subjectRecordId), eq(auditEvents.action, 'subject.create')),
      );
    expect(JSON.stringify(created!.newValue)).not.toContain(MOBILE);
    expect(created!.newValue).toMatchObject({ idNumber: ID_MASK, mobile: MOBILE_MASK });
  });

  it('one person is enrolled once per study (该身份证号已登记), and may be in another study', async () => {
    const id = idOf('11010119900307001');
    expect((await enrol(admin, { idNumber: id })).status).toBe(200);
    const again = await enrol(admin, { idNumber: id, subjectName: '张三丰' });
    expect(again.status).toBe(409);
    expect(again.body.msg).toBe('该身份证号已登记');
    const elsewhere = await enrol(admin, { idNumber: id, identificationCode: 'S2-001' }, otherStudyId);
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
    const bad = await enrol(admin, { idNumber: `${id.slice(0, 17)}${id.endsWith('0') ? '1' : '0'}` });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe('请输入正确的身份证号码');
  });

  it('a member without 查看患者身份信息 sees name, birth, mobile and ID number masked in every answer carrying the patient', async () => {
    const idNumber = idOf('11010519600501001');
    const res = await enrol(admin, { subjectName: '欧阳娜娜', birth: '1960-05-01', mobile: '13912340002', idNumber });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { id, subjectRecordId } = res.body.data as { id: number; subjectRecordId: number };
    const masked = {
      subjectName: '欧***',
      birth: '1960-**-**',
      mobile: '139****0002',
      idNumber: `110105********${idNumber.slice(-4)}`,
      identifiersMasked: true,
    };
    const clear = {
      subjectName: '欧阳娜娜',
      birth: '1960-05-01',
      mobile: '13912340002',
      idNumber,
      identifiersMasked: false,
    };
    const vitals = crfIds['生命体征']!;
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { hr: 71 },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    await t.call(admin, 'POST', '/api/business/doubt/open', {
      crfDataRecordId: saved.body.data.crfDataRecordId,
      itemName: 'hr',
      doubtDescription: '请核实',
    });
    const reads = async (token: string) => {
      const pick = (rows: Array<{ id: number }>) => rows.find((r) => r.id === id);
      const answers = {
        subject: (await t.call(token, 'GET', `/api/business/subject/${id}`)).body.data,
        patientInfo: (await t.call(token, 'GET', `/api/business/ducking/patientInfo/${subjectRecordId}`)).body.data,
        listV1: pick(
          (await t.call(token, 'GET', `/api/v1/business/subjectRecord/list?studyId=${studyId}&pageSize=100`)).body.data
            .list,
        ),
        listV2: pick(
          (await t.call(token, 'GET', `/api/v2/business/subjectRecord/list?studyId=${studyId}&pageSize=100`)).body.data
            .list,
        ),
        listV3: pick(
          (await t.call(token, 'POST', '/api/v3/business/subjectRecord/list', { studyId, pageNum: 1, pageSize: 100 }))
            .body.data.list,
        ),
        crfDetail: (await t.call(token, 'GET', `/api/v3/business/crf/${subjectRecordId}?crfId=${vitals}`)).body.data
          ?.subject,
        overview: (await t.call(token, 'GET', `/api/v3/business/overview/${subjectRecordId}`)).body.data?.subject,
      };
      return answers;
    };
    const doubtNames = async (token: string) =>
      (
        await t.call(token, 'GET', `/api/business/doubts?studyId=${studyId}&subjectRecordId=${subjectRecordId}`)
      ).body.data.list.map((d: { subjectName: string }) => d.subjectName);
    expect(await doubtNames(tokens.masked)).toEqual(['欧***']);
    expect(await doubtNames(tokens.clear)).toEqual(['欧阳娜娜']);
    for (const [route, subject] of Object.entries(await reads(tokens.masked))) {
      expect(subject, route).toMatchObject(masked);
      expect(subject.age, route).toBe(66);
      expect(JSON.stringify(subject), route).not.toMatch(/娜娜|13912340002|19600501|05-01/);
    }
    for (const token of [tokens.clear, tokens.studyAdmin, admin]) {
      for (const [route, subject] of Object.entries(await reads(token))) expect(subject, route).toMatchObject(clear);
    }
  });

  it('SUBJ-21: an edit keeps what it leaves out or sends back masked; only an explicit null clears', async () => {
    const res = await enrol(admin, {
      subjectName: '李四',
      birth: '1970-01-02',
      mobile: MOBILE,
      idNumber: idOf('11010119700102001'),
    });
    const { id, subjectRecordId } = res.body.data as { id: number; subjectRecordId: number };
    const stored = async () => (await t.call(admin, 'GET', `/api/business/subject/${id}`)).body.data;
    const put = (token: string, body: object) => t.call(token, 'PUT', '/api/business/subject', { id, ...body });

    // Without mobile (and without every other field): nothing is erased.
    const bare = await put(tokens.masked, { diseaseCode: 'LDS' });
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(await stored()).toMatchObject({
      subjectName: '李四',
      birth: '1970-01-02',
      mobile: MOBILE,
      idNumber: idOf('11010119700102001'),
      diseaseCode: 'LDS',
    });

    // The dialog of a member without the permission sends back what it was shown.
    const shown = (await t.call(tokens.masked, 'GET', `/api/business/subject/${id}`)).body.data;
    const back = await put(tokens.masked, {
      subjectName: shown.subjectName,
      gender: 0,
      birth: shown.birth,
      mobile: shown.mobile,
      idNumber: shown.idNumber,
      diseaseCode: 'LSS',
    });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.data).toMatchObject({ subjectName: '李*', mobile: MOBILE_MASK, gender: 0 });
    expect(await stored()).toMatchObject({
      subjectName: '李四',
      birth: '1970-01-02',
      mobile: MOBILE,
      idNumber: idOf('11010119700102001'),
      gender: 0,
    });

    // A new value typed over the mask is taken.
    expect((await put(tokens.masked, { mobile: '13700000009' })).status).toBe(200);
    expect((await stored()).mobile).toBe('13700000009');

    // Explicit null or '' clears an optional field.
    expect((await put(tokens.masked, { mobile: null, idNumber: '' })).status).toBe(200);
    const cleared = await stored();
    expect(cleared).toMatchObject({ mobile: null, idNumber: null, subjectName: '李四' });
    const [row] = await t.db.select().from(subjects).where(eq(subjects.id, id));
    expect(row).toMatchObject({ idNumberEnc: null, idNumberHash: null });
    // A required field cannot be cleared.
    expect((await put(tokens.masked, { subjectName: '' })).body.msg).toBe('请输入患者姓名');

    // The trail shows mobile and ID number changes masked, with who and when; no unchanged field is audited.
    const history = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectRecordId, subjectRecordId), eq(auditEvents.action, 'subject.update')));
    const byField = (f: string) => history.filter((h) => h.itemName === f).map((h) => [h.oldValue, h.newValue]);
    expect(byField('mobile')).toEqual([
      [MOBILE_MASK, '137****0009'],
      ['137****0009', null],
    ]);
    expect(byField('idNumber')).toEqual([[`110101********${idOf('11010119700102001').slice(-4)}`, null]]);
    expect(byField('subjectName')).toEqual([]);
    expect(byField('birth')).toEqual([]);
    expect(history.every((h) => h.userName.includes('13300000001'))).toBe(true);
    expect(JSON.stringify(history)).not.toMatch(/13800000002|13700000009|19700102/);
  });

  it('the patient rows of the audit trail show names and birth dates masked to a member without the permission', async () => {
    const res = await enrol(admin, { subjectName: '周五', birth: '1955-07-08', mobile: MOBILE });
    const { id, subjectRecordId } = res.body.data as { id: number; subjectRecordId: number };
    expect((await t.call(admin, 'PUT', '/api/business/subject', { id, subjectName: '周五六' })).status).toBe(200);
    const history = async (token: string) =>
      (await t.call(token, 'GET', `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}`)).body.data
        .list as Array<{
        id: number;
        action: string;
        oldValue: unknown;
        newValue: unknown;
      }>;
    const masked = await history(tokens.masked);
    expect(masked.find((e) => e.action === 'subject.create')!.newValue).toMatchObject({
      subjectName: '周*',
      birth: '1955-**-**',
      mobile: MOBILE_MASK,
    });
    const rename = masked.find((e) => e.action === 'subject.update')!;
    expect(rename).toMatchObject({ oldValue: '周*', newValue: '周**' });
    const one = await t.call(tokens.masked, 'GET', `/api/business/subjectRecord/operate?id=${rename.id}`);
    expect(one.body.data).toMatchObject({ oldValue: '周*', newValue: '周**' });
    expect(JSON.stringify(masked)).not.toMatch(/周五|1955-07-08/);
    const clear = await history(tokens.clear);
    expect(clear.find((e) => e.action === 'subject.update')).toMatchObject({ oldValue: '周五', newValue: '周五六' });
  });

  it('a changed ID number is checked for duplicates and re-encrypted', async () => {
    const a = await enrol(admin, { subjectName: '甲', idNumber: idOf('11010119800101001') });
    const b = await enrol(admin, { subjectName: '乙' });
    const taken = await t.call(admin, 'PUT', '/api/business/subject', {
      id: b.body.data.id,
      idNumber: idOf('11010119800101001'),
    });
    expect(taken.status).toBe(409);
    expect(taken.body.msg).toBe('该身份证号已登记');
    // Freed by deleting the first patient, it may be used again; restoring the first is then refused.
    expect(
      (
        await t.call(
          admin,
          'DELETE',
          `/api/business/subjectRecord?subjectRecordId=${a.body.data.subjectRecordId}&reason=重复录入`,
        )
      ).status,
    ).toBe(200);
    const moved = await t.call(admin, 'PUT', '/api/business/subject', {
      id: b.body.data.id,
      idNumber: idOf('11010119800101001'),
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const [row] = await t.db.select().from(subjects).where(eq(subjects.id, b.body.data.id));
    expect(t.ctx.fieldCrypto.decrypt(row!.idNumberEnc!)).toBe(idOf('11010119800101001'));
    const restore = await t.call(admin, 'PUT', '/api/business/subjectRecord/restore', {
      subjectRecordId: a.body.data.subjectRecordId,
      reason: '误删',
    });
    expect(restore.status).toBe(409);
    expect(restore.body.msg).toBe('该身份证号已登记，无法恢复');
  });

  it('the permission is a study button the study administrator role holds', async () => {
    const tree = (await t.call(admin, 'GET', `/api/system/studyRole/tree?studyId=${studyId}`)).body;
    expect(JSON.stringify(tree)).toContain('查看患者身份信息');
    const [adminRole] = await t.db
      .select()
      .from(studyRoles)
      .where(and(eq(studyRoles.studyId, otherStudyId), eq(studyRoles.roleName, STUDY_ADMIN_ROLE)));
    expect(adminRole!.permissions).toContain('btn:business.subject.identifiers');

    // Studies created before the permission existed: the migration's data step gives it to their administrator role once.
    const sql = fs.readFileSync(new URL('../../../drizzle/0008_subject_identifiers.sql', import.meta.url), 'utf8');
    const update = sql.split('--> statement-breakpoint').find((part) => part.includes('UPDATE "study_roles"'))!;
    const without = adminRole!.permissions.filter((k) => k !== 'btn:business.subject.identifiers');
    await t.db.update(studyRoles).set({ permissions: without }).where(eq(studyRoles.id, adminRole!.id));
    await t.db.execute(update);
    await t.db.execute(update);
    const [after] = await t.db.select().from(studyRoles).where(eq(studyRoles.id, adminRole!.id));
    expect(after!.permissions.filter((k) => k === 'btn:business.subject.identifiers')).toHaveLength(1);
    expect(after!.permissions).toHaveLength(adminRole!.permissions.length);
  });
});
