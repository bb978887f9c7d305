import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, crfKey } from '@ecrf/core';
import { auditEvents, studyRoles } from '../db/schema/index.js';
import { multipart } from '../test/multipart.js';
import { createTestApp, type TestApp } from '../test/test-app.js';
import { addStudyMember } from '../test/study-member.js';
import { openDemoStudy } from '../test/demo.js';

/**
 * The read-permission matrix for what the patient trail records beside form values: medical records
 * (查看病历资料) and consultations (查看咨询). Each view of the trail (a patient's page of rows, one row, the
 * CSV of a patient or of the study, a record's history) shows a row only to whoever may read what it records,
 * counted in SQL so a page's total is what the caller reads; the consultation calls need 查看咨询.
 * Callers: an empty role, each key alone, 回复咨询 alone (it includes 查看咨询), full access.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let subjectId: number;
let subjectRecordId: number;
let vitalsRecord: number;
let vitals: number;
let fileKey: string;
let consultId: number;
const auditIds: Record<'medicalCreate' | 'medicalCrf' | 'consultAsk' | 'consultAnswer', number> = {
  medicalCreate: 0,
  medicalCrf: 0,
  consultAsk: 0,
  consultAnswer: 0,
};
const who = { empty: '', medical: '', consult: '', replier: '', vitalsOnly: '', medicalVitals: '', monitor: '' };

// Texts only the medical record and the consultation hold: none may reach a caller who may not read them.
const NOTE = '病程记录：患者夜间胸痛两次';
const MEDICAL_TITLE = '心内科住院病历';
const QUESTION = '服用华法林期间可以拔牙吗';
const ANSWER = '请先复查INR后再预约';

const MEDICAL_VIEW = buttonKey('project.medical.view');
const CONSULT_VIEW = buttonKey('business.consult.view');
const CONSULT_REPLY = buttonKey('business.consult.reply');

const member = (userName: string, permissions: string[]) =>
  addStudyMember(t, admin, studyId, userName, { permissions });

beforeAll(async () => {
  t = await createTestApp();
  let crfIds: Record<string, number>;
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  vitals = crfIds['生命体征']!;
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '孙九',
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  subjectId = enrolled.body.data.id;
  subjectRecordId = enrolled.body.data.subjectRecordId;
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: vitals,
    version: 0,
    values: { hr: 72, sbp: 126 },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  vitalsRecord = saved.body.data.crfDataRecordId;

  const form = multipart({}, [
    { fileName: '住院病历.pdf', data: Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n'), type: 'application/pdf' },
  ]);
  const upload = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${studyId}`,
    headers: { ...form.headers, authorization: `Bearer ${admin}` },
    payload: form.payload,
  });
  expect(upload.statusCode, upload.body).toBe(200);
  fileKey = upload.json().data.fileKey;

  const medical = await t.call(admin, 'POST', '/api/v1/medical', {
    studyId,
    subjectId,
    title: MEDICAL_TITLE,
    category: '病程记录',
    visitDate: '2026-11-02',
    hospital: '第一人民医院',
    note: NOTE,
    files: [{ fileKey, fileName: '住院病历.pdf' }],
  });
  expect(medical.status, JSON.stringify(medical.body)).toBe(200);
  const linked = await t.call(admin, 'PUT', '/api/v1/medical/crf', {
    studyId,
    id: medical.body.data.id,
    crfDataRecordId: vitalsRecord,
  });
  expect(linked.status, JSON.stringify(linked.body)).toBe(200);
  // Patient rows every member reads, between and after the restricted ones, so paging has to skip the latter.
  const patientChange = async (change: object) => {
    const res = await t.call(admin, 'PUT', '/api/business/subject', { id: subjectId, ...change });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  await patientChange({ mobile: '13912345678' });

  const asked = await t.call(admin, 'POST', '/api/v1/advisory/manager', {
    studyId,
    subjectId,
    title: '拔牙咨询',
    question: QUESTION,
  });
  expect(asked.status, JSON.stringify(asked.body)).toBe(200);
  consultId = asked.body.data.id;
  const answered = await t.call(admin, 'PUT', `/api/v1/advisory/manager/${consultId}/answer`, {
    studyId,
    answer: ANSWER,
  });
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  await patientChange({ birth: '1961-01-01' });

  const rows = await t.db.select().from(auditEvents).where(eq(auditEvents.subjectRecordId, subjectRecordId));
  const idOf = (action: string) => rows.find((r) => r.action === action)!.id;
  auditIds.medicalCreate = idOf('medical.create');
  auditIds.medicalCrf = idOf('medical.crf');
  auditIds.consultAsk = idOf('consult.ask');
  auditIds.consultAnswer = idOf('consult.answer');

  who.empty = await member('13200001001', []);
  who.medical = await member('13200001002', [MEDICAL_VIEW]);
  who.consult = await member('13200001003', [CONSULT_VIEW]);
  who.replier = await member('13200001004', [CONSULT_REPLY]);
  who.vitalsOnly = await member('13200001005', [crfKey(vitals, 'view')]);
  who.medicalVitals = await member('13200001006', [MEDICAL_VIEW, crfKey(vitals, 'view')]);
  who.monitor = await member('13200001007', [buttonKey('business.crf.sdv')]);
});
afterAll(() => t.close());

const get = async (token: string, url: string) => {
  const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return {
    status: res.statusCode,
    body: String(res.headers['content-type'] ?? '').includes('json') ? res.json() : res.body,
    text: res.body,
  };
};

type TrailRow = { id: number; action: string };
const operates = async (token: string, pageSize = 100) =>
  (await get(token, `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageSize=${pageSize}`))
    .body.data as { list: TrailRow[]; total: number };
const actionsOf = (rows: TrailRow[]) => new Set(rows.map((r) => r.action));
const patientCsv = async (token: string) =>
  (await get(token, `/api/business/audit/export?subjectRecordId=${subjectRecordId}`)).text;

/** What a medical record's rows carry (the file's key is known once the file is uploaded). */
const medicalTexts = () => [NOTE, MEDICAL_TITLE, fileKey, '新增病历资料', '关联源文件'];
const CONSULT_TEXTS = [QUESTION, ANSWER, '新增咨询', '回复咨询'];
const expectNone = (text: string, texts: readonly string[]) => {
  for (const needle of texts) expect(text, needle).not.toContain(needle);
};
const expectAll = (text: string, texts: readonly string[]) => {
  for (const needle of texts) expect(text, needle).toContain(needle);
};

describe('medical records and consultations × study roles (the trail, the CSV, the consultation calls)', () => {
  it('an empty study role reads no medical record or consultation: no trail row, no row by id, nothing in the CSV, no consultation call', async () => {
    const page = await operates(who.empty);
    expect(page.list.length).toBeGreaterThan(0);
    expect([...actionsOf(page.list)].filter((a) => a.startsWith('medical.') || a.startsWith('consult.'))).toEqual([]);
    expectNone(JSON.stringify(page), [...medicalTexts(), ...CONSULT_TEXTS]);
    for (const id of Object.values(auditIds)) {
      expect((await get(who.empty, `/api/business/subjectRecord/operate?id=${id}`)).status, String(id)).toBe(403);
    }
    const csv = await patientCsv(who.empty);
    expect(csv).toContain('添加患者');
    expectNone(csv, [...medicalTexts(), ...CONSULT_TEXTS]);
    expect((await get(who.empty, `/api/v1/advisory/manager/list?studyId=${studyId}`)).status).toBe(403);
    expect((await get(who.empty, `/api/v1/advisory/manager/${consultId}?studyId=${studyId}`)).status).toBe(403);
    expect((await get(who.empty, `/api/v1/medicals?studyId=${studyId}`)).status).toBe(403);
  });

  it('the trail is filtered in SQL: the total counts only the rows the caller reads, and pages of one add up to it', async () => {
    const stored = await t.db
      .select({ action: auditEvents.action, crfId: auditEvents.crfId })
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.subjectRecordId, subjectRecordId)));
    const readable = stored.filter(
      (r) => r.crfId === null && !r.action.startsWith('medical.') && !r.action.startsWith('consult.'),
    );
    const whole = await operates(who.empty);
    expect(readable.length).toBeGreaterThanOrEqual(3);
    expect(whole.total).toBe(readable.length);
    const seen: number[] = [];
    for (let pageNum = 1; pageNum <= whole.total; pageNum++) {
      const one = (
        await get(
          who.empty,
          `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageSize=1&pageNum=${pageNum}`,
        )
      ).body.data as { list: TrailRow[]; total: number };
      expect(one.total).toBe(whole.total);
      expect(one.list).toHaveLength(1);
      seen.push(one.list[0]!.id);
    }
    expect(seen).toEqual(whole.list.map((r) => r.id));
    expect((await operates(admin)).total).toBe(stored.length);
  });

  it('查看病历资料 reads the medical rows (title, note, files) in every view, and no consultation', async () => {
    const page = await operates(who.medical);
    expect(actionsOf(page.list)).toContain('medical.create');
    // The link to a CRF record is a row of that CRF too: it needs the CRF's view key as well.
    expect(actionsOf(page.list)).not.toContain('medical.crf');
    expectAll(JSON.stringify(page), [NOTE, MEDICAL_TITLE, fileKey]);
    expectNone(JSON.stringify(page), CONSULT_TEXTS);
    const one = await get(who.medical, `/api/business/subjectRecord/operate?id=${auditIds.medicalCreate}`);
    expect(one.status).toBe(200);
    expect(JSON.stringify(one.body.data)).toContain(NOTE);
    expect((await get(who.medical, `/api/business/subjectRecord/operate?id=${auditIds.consultAsk}`)).status).toBe(403);
    const csv = await patientCsv(who.medical);
    expectAll(csv, [NOTE, MEDICAL_TITLE, '新增病历资料']);
    expectNone(csv, CONSULT_TEXTS);
    expect((await get(who.medical, `/api/v1/advisory/manager/list?studyId=${studyId}`)).status).toBe(403);
  });

  it('a record’s history shows the link to a medical record only with 查看病历资料 and the CRF’s view key', async () => {
    const history = async (token: string) =>
      (await get(token, `/api/business/crf/audit?crfDataRecordId=${vitalsRecord}`)).body.data as TrailRow[];
    expect(actionsOf(await history(who.vitalsOnly))).not.toContain('medical.crf');
    expect(actionsOf(await history(who.vitalsOnly))).toContain('item.update');
    expect(actionsOf(await history(who.medicalVitals))).toContain('medical.crf');
    expect((await get(who.vitalsOnly, `/api/business/subjectRecord/operate?id=${auditIds.medicalCrf}`)).status).toBe(
      403,
    );
    expect((await get(who.medicalVitals, `/api/business/subjectRecord/operate?id=${auditIds.medicalCrf}`)).status).toBe(
      200,
    );
  });

  it('查看咨询 reads the consultation calls and the consultation rows, and no medical record', async () => {
    const list = await get(who.consult, `/api/v1/advisory/manager/list?studyId=${studyId}`);
    expect(list.status).toBe(200);
    expect(list.body.data.list.map((c: { question: string }) => c.question)).toEqual([QUESTION]);
    const detail = await get(who.consult, `/api/v1/advisory/manager/${consultId}?studyId=${studyId}`);
    expect(detail.body.data).toMatchObject({ question: QUESTION, answer: ANSWER });
    const page = await operates(who.consult);
    expect(actionsOf(page.list)).toContain('consult.ask');
    expect(actionsOf(page.list)).toContain('consult.answer');
    expectAll(JSON.stringify(page), [QUESTION, ANSWER]);
    expectNone(JSON.stringify(page), [NOTE, MEDICAL_TITLE]);
    expect((await get(who.consult, `/api/business/subjectRecord/operate?id=${auditIds.consultAsk}`)).status).toBe(200);
    const csv = await patientCsv(who.consult);
    expectAll(csv, [QUESTION, '新增咨询']);
    expectNone(csv, [NOTE, MEDICAL_TITLE]);
    // 查看咨询 reads; answering still needs 回复咨询.
    const answer = await t.call(who.consult, 'PUT', `/api/v1/advisory/manager/${consultId}/answer`, {
      studyId,
      answer: '越权回复',
    });
    expect(answer.status).toBe(403);
  });

  it('回复咨询 includes 查看咨询: an answerer reads the questions it answers, in the list and the trail', async () => {
    expect((await get(who.replier, `/api/v1/advisory/manager/list?studyId=${studyId}`)).body.data.total).toBe(1);
    expect(actionsOf((await operates(who.replier)).list)).toContain('consult.ask');
  });

  it('the study’s CSV (monitors) holds medical and consultation rows only for their readers; full access reads everything', async () => {
    const monitorCsv = (await get(who.monitor, `/api/business/audit/export?studyId=${studyId}`)).text;
    expect(monitorCsv).toContain('添加患者');
    expectNone(monitorCsv, [...medicalTexts(), ...CONSULT_TEXTS]);
    const full = (await get(admin, `/api/business/audit/export?studyId=${studyId}`)).text;
    expectAll(full, [...medicalTexts(), ...CONSULT_TEXTS]);
    const page = await operates(admin);
    for (const action of ['medical.create', 'medical.crf', 'consult.ask', 'consult.answer']) {
      expect(actionsOf(page.list)).toContain(action);
    }
  });
});

describe('查看咨询 in study roles', () => {
  it('the role editor offers 查看咨询 among the study’s buttons, and a role saves it', async () => {
    const tree = (await get(admin, `/api/system/studyRole/tree?studyId=${studyId}`)).body.data;
    expect(tree[0].children).toContainEqual({ key: CONSULT_VIEW, title: '查看咨询' });
    const role = await t.call(admin, 'POST', '/api/system/studyRole', {
      studyId,
      roleName: '咨询查看',
      permissions: [CONSULT_VIEW],
    });
    expect(role.body.data.permissions).toEqual([CONSULT_VIEW]);
  });

  it('a 项目管理员 role saved before 查看咨询 existed still reads questions, counts as full and gains new CRFs', async () => {
    const roles = (await get(admin, `/api/system/studyRoles?studyId=${studyId}`)).body.data as Array<{
      id: number;
      roleName: string;
      permissions: string[];
    }>;
    const manager = roles.find((r) => r.roleName === '项目管理员')!;
    expect(manager.permissions).toContain(CONSULT_VIEW);
    // As a deployment's role stands before this version: every key but the new one.
    await t.db
      .update(studyRoles)
      .set({ permissions: manager.permissions.filter((k) => k !== CONSULT_VIEW) })
      .where(eq(studyRoles.id, manager.id));
    const legacy = await addStudyMember(t, admin, studyId, '13200001008', { studyRoleId: manager.id });
    expect((await get(legacy, `/api/v1/advisory/manager/list?studyId=${studyId}`)).status).toBe(200);
    expect(actionsOf((await operates(legacy)).list)).toContain('consult.ask');

    // Still a full role: moving another member who holds it to a lesser role keeps one full member.
    const staff = (await get(admin, `/api/business/study_personnel/list?studyId=${studyId}&pageSize=100`)).body.data
      .list as Array<{ id: number; studyRoleId: number; userName: string }>;
    const other = staff.find((m) => m.studyRoleId === manager.id && m.userName !== '13200001008')!;
    const lesser = roles.find((r) => r.roleName !== '项目管理员')!;
    const moved = await t.call(admin, 'PUT', '/api/business/study_personnel', {
      id: other.id,
      studyRoleId: lesser.id,
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const back = await t.call(admin, 'PUT', '/api/business/study_personnel', {
      id: other.id,
      studyRoleId: manager.id,
    });
    expect(back.status, JSON.stringify(back.body)).toBe(200);

    const uploaded = await t.call(admin, 'POST', '/api/system/crf', {
      studyId,
      definition: {
        title: '随访问卷',
        option: {},
        children: [{ name: 'pain', title: '疼痛评分', type: 'int', option: {}, children: [] }],
      },
    });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
    const crfId = uploaded.body.data.crfs[0].id as number;
    const [after] = await t.db.select().from(studyRoles).where(eq(studyRoles.id, manager.id));
    expect(after!.permissions).toContain(crfKey(crfId, 'view'));
    expect(after!.permissions).not.toContain(CONSULT_VIEW);
  });
});
