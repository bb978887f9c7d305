import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStudyPermissionKeys } from '@ecrf/core';
import { auditEvents, subjectRecords, subjects } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';
import { wordTemplate } from '../../test/word-template.js';

/**
 * Site scope (docs/multi-centre.md) on the patient, form, query, trail, print and file routes: a site-B nurse
 * neither lists nor opens nor changes site A's patient (404, or absent from lists and counts), a site-A nurse does,
 * the monitor (查看全部中心数据) sees both; where new patients go; 转移中心.
 */
let t: TestApp;
let s: TwoSiteStudy;
let subjectA: number;
let demographics: number;
let recordA: number;
let doubtA: number;
let doubtB: number;
let fileKey: string;
const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'),
  Buffer.alloc(64),
]);

type Who = { token: string };
const get = (who: Who | string, url: string) => t.call(typeof who === 'string' ? who : who.token, 'GET', url);
const send = (who: Who | string, method: string, url: string, body?: unknown) =>
  t.call(typeof who === 'string' ? who : who.token, method, url, body);
const raw = (who: Who, url: string) =>
  t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${who.token}` } });
const names = (list: Array<{ subjectName: string }>) => list.map((r) => r.subjectName);

async function must(method: string, url: string, body?: unknown) {
  const res = await send(s.admin, method, url, body);
  if (res.status !== 200) throw new Error(`${method} ${url}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function subjectOf(subjectRecordId: number) {
  const [row] = await t.db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, subjectRecordId));
  return row!.subjectId;
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-site-records-test-${process.pid}` } });
  s = await openTwoSiteStudy(t);
  subjectA = await subjectOf(s.patientA.subjectRecordId);
  demographics = s.crfIds['人口学资料']!;
  const save = async (subjectRecordId: number, crfId: number, values: object) =>
    (await must('PUT', '/api/v3/business/crf', { subjectRecordId, crfId, version: 0, values })).crfDataRecordId;
  recordA = await save(s.patientA.subjectRecordId, demographics, { history_note: '甲院病史' });
  const recordB = await save(s.patientB.subjectRecordId, demographics, { history_note: '乙院病史' });
  const open = async (crfDataRecordId: number) =>
    (
      await must('POST', `/api/business/doubt/open?studyId=${s.studyId}`, {
        crfDataRecordId,
        itemName: 'history_note',
        doubtDescription: '请核实',
      })
    ).doubtId;
  doubtA = await open(recordA);
  doubtB = await open(recordB);
  const form = multipart({}, [{ fileName: 'xray.png', data: PNG }]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${s.studyId}`,
    headers: { ...form.headers, authorization: `Bearer ${s.admin}` },
    payload: form.payload,
  });
  fileKey = uploaded.json().data.fileKey;
  await save(s.patientA.subjectRecordId, s.crfIds['影像学检查']!, {
    xray: [{ dialogImgUrl: `/api/v1/fileupload/downfile?fileKey=${fileKey}`, uploadTime: '2026-11-22 08:00:00' }],
  });
});
afterAll(() => t.close());

describe('patients', () => {
  it('SUBJ-24: each nurse lists and counts her own site’s patients only; the monitor both, with 中心', async () => {
    const list = (who: Who, filter: object = {}) =>
      send(who, 'POST', '/api/v3/business/subjectRecord/list', {
        studyId: s.studyId,
        pageNum: 1,
        pageSize: 50,
        ...filter,
      });
    const a = await list(s.nurseA);
    expect(names(a.body.data.list)).toEqual(['甲院患者']);
    expect(a.body.data.total).toBe(1);
    expect(a.body.data.list[0]).toMatchObject({ deptId: s.siteA, deptName: '甲中心' });
    const b = await list(s.nurseB, { state: 0 });
    expect(names(b.body.data.list)).toEqual(['乙院患者']);
    expect(b.body.data.total).toBe(1);
    expect((await list(s.nurseB, { subjectName: '院患者' })).body.data.total).toBe(1);
    const all = await list(s.monitor);
    expect(names(all.body.data.list)).toEqual(expect.arrayContaining(['甲院患者', '乙院患者']));
    for (const version of ['v1', 'v2']) {
      const old = await get(s.nurseB, `/api/${version}/business/subjectRecord/list?studyId=${s.studyId}`);
      expect(names(old.body.data.list)).toEqual(['乙院患者']);
      expect(old.body.data.total).toBe(1);
    }
  });

  it('SUBJ-21/SUBJ-22: a patient by id, and by casebook, is 404 for the other site’s nurse', async () => {
    for (const url of [`/api/business/subject/${subjectA}`, `/api/business/ducking/patientInfo/${recordOfA()}`]) {
      const other = await get(s.nurseB, url);
      expect(other.status, url).toBe(404);
      expect(other.body.msg).toBe('患者不存在');
      expect(JSON.stringify(other.body)).not.toContain('甲院');
      const own = await get(s.nurseA, url);
      expect(own.status, url).toBe(200);
      expect(own.body.data).toMatchObject({ deptId: s.siteA, deptName: '甲中心' });
      expect((await get(s.monitor, url)).status).toBe(200);
    }
  });

  it('SUBJ-21: the other site’s nurse cannot edit the patient, and the edit no longer moves a patient', async () => {
    const edit = (who: Who, body: object) => send(who, 'PUT', '/api/business/subject', { id: subjectA, ...body });
    expect((await edit(s.nurseB, { gender: 0 })).status).toBe(404);
    const [row] = await t.db.select().from(subjects).where(eq(subjects.id, subjectA));
    expect(row!.gender).toBe(1);
    const moved = await edit(s.nurseA, { deptId: s.siteB });
    expect(moved.status).toBe(400);
    expect(moved.body.msg).toBe('转移中心请使用“转移中心”操作');
    expect((await send(s.admin, 'PUT', '/api/business/subject', { id: subjectA, deptId: s.siteB })).status).toBe(400);
    expect((await edit(s.nurseA, { deptId: s.siteA, gender: 1 })).status).toBe(200);
    const [after] = await t.db.select().from(subjects).where(eq(subjects.id, subjectA));
    expect(after!.deptId).toBe(s.siteA);
  });

  it('SUBJ-23: signatures and signing are the patient’s site’s', async () => {
    const url = `/api/business/subject/signatures?subjectRecordId=${recordOfA()}`;
    expect((await get(s.nurseB, url)).status).toBe(404);
    expect((await get(s.nurseA, url)).status).toBe(200);
    const sign = (who: Who) =>
      send(who, 'PUT', '/api/v1/business/subject/sign', { subjectRecordId: recordOfA(), password: 'Passw0rd' });
    expect((await sign(s.nurseB)).status).toBe(404);
    expect((await sign(s.nurseA)).status).toBe(200);
    expect((await get(s.nurseA, url)).body.data).toHaveLength(1);
  });
});

function recordOfA() {
  return s.patientA.subjectRecordId;
}

describe('where a new patient goes', () => {
  const enrol = (who: Who, subjectName: string, deptId?: number) =>
    send(who, 'POST', '/api/business/subject', {
      studyId: s.studyId,
      subjectName,
      gender: 1,
      birth: '1960-05-01',
      diseaseCode: 'LSS',
      ...(deptId === undefined ? {} : { deptId }),
    });

  it('a nurse enrols at her own site, by default or by choice, never at another', async () => {
    const byDefault = await enrol(s.nurseA, '甲院新患者');
    expect(byDefault.status, JSON.stringify(byDefault.body)).toBe(200);
    expect(byDefault.body.data).toMatchObject({ deptId: s.siteA, deptName: '甲中心' });
    expect((await enrol(s.nurseA, '甲院选定患者', s.siteA)).body.data.deptId).toBe(s.siteA);
    const elsewhere = await enrol(s.nurseA, '越界患者', s.siteB);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.msg).toBe('所选中心不在您的中心范围内');
    expect(await t.db.select().from(subjects).where(eq(subjects.subjectName, '越界患者'))).toHaveLength(0);
  });

  it('a member seeing every site may enrol at any existing department, not at one that does not exist', async () => {
    const there = await enrol(s.monitor, '监查员录入患者', s.siteB);
    expect(there.status, JSON.stringify(there.body)).toBe(200);
    expect(there.body.data.deptId).toBe(s.siteB);
    expect((await enrol(s.monitor, '无中心患者', 999999)).status).toBe(400);
  });
});

describe('转移中心', () => {
  let moving: { subjectId: number; subjectRecordId: number };
  const move = (who: Who | string, body: object) => send(who, 'PUT', '/api/business/subject/site', body);
  const listed = async (who: Who) =>
    names(
      (
        await send(who, 'POST', '/api/v3/business/subjectRecord/list', {
          studyId: s.studyId,
          pageNum: 1,
          pageSize: 50,
          subjectName: '转院',
        })
      ).body.data.list,
    );

  beforeAll(async () => {
    const res = await send(s.nurseA, 'POST', '/api/business/subject', {
      studyId: s.studyId,
      subjectName: '转院患者',
      gender: 0,
      birth: '1970-01-01',
      diseaseCode: 'LSS',
    });
    moving = { subjectId: res.body.data.id, subjectRecordId: res.body.data.subjectRecordId };
  });

  it('is refused to nurses (403), to a member seeing every site without the edit permission, and without a reason', async () => {
    const body = { subjectId: moving.subjectId, deptId: s.siteB, reason: '患者转诊' };
    expect((await move(s.nurseA, body)).status).toBe(403);
    expect((await move(s.nurseB, body)).status).toBe(403);
    const viewer = await addStudyMember(t, s.admin, s.studyId, '13700000009', {
      permissions: allStudyPermissionKeys(Object.values(s.crfIds)).filter((k) => k !== 'btn:business.subject.edit'),
    });
    expect((await move(viewer, body)).status).toBe(403);
    const blank = await move(s.monitor, { ...body, reason: '  ' });
    expect(blank.status).toBe(400);
    expect(blank.body.msg).toBe('请填写转移原因');
    expect((await move(s.monitor, { ...body, reason: '长'.repeat(201) })).status).toBe(400);
    expect((await move(s.monitor, { ...body, deptId: s.siteA })).status).toBe(400);
    const [row] = await t.db.select().from(subjects).where(eq(subjects.id, moving.subjectId));
    expect(row!.deptId).toBe(s.siteA);
  });

  it('the monitor moves the patient with the reason, audited; the patient leaves site A’s list for site B’s', async () => {
    expect(await listed(s.nurseA)).toEqual(['转院患者']);
    expect(await listed(s.nurseB)).toEqual([]);
    const res = await move(s.monitor, { subjectId: moving.subjectId, deptId: s.siteB, reason: '患者转诊至乙中心' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ deptId: s.siteB, deptName: '乙中心' });
    const [row] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectRecordId, moving.subjectRecordId), eq(auditEvents.action, 'subject.site')));
    expect(row).toMatchObject({ oldValue: s.siteA, newValue: s.siteB, reason: '患者转诊至乙中心' });
    expect(await listed(s.nurseA)).toEqual([]);
    expect(await listed(s.nurseB)).toEqual(['转院患者']);
    expect((await get(s.nurseA, `/api/business/subject/${moving.subjectId}`)).status).toBe(404);
    expect((await get(s.nurseB, `/api/business/subject/${moving.subjectId}`)).status).toBe(200);
    const trail = await get(s.nurseB, `/api/business/subjectRecord/operates?subjectRecordId=${moving.subjectRecordId}`);
    expect(trail.body.data.list.find((r: { action: string }) => r.action === 'subject.site')).toMatchObject({
      actionName: '转移中心',
      itemTitle: '中心',
      oldText: '甲中心',
      newText: '乙中心',
      reason: '患者转诊至乙中心',
    });
  });

  it('the administrator moves the patient back', async () => {
    const res = await move(s.admin, { subjectId: moving.subjectId, deptId: s.siteA, reason: '转回' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await listed(s.nurseA)).toEqual(['转院患者']);
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectRecordId, moving.subjectRecordId), eq(auditEvents.action, 'subject.site')))
      .orderBy(desc(auditEvents.id));
    expect(rows[0]).toMatchObject({ oldValue: s.siteB, newValue: s.siteA, reason: '转回' });
  });
});

describe('forms', () => {
  it('the CRF menu by casebook id and the overview are the patient’s site’s', async () => {
    for (const url of [
      `/api/business/crf/menu/${recordOfA()}`,
      `/api/v3/business/overview/${recordOfA()}`,
      `/api/business/crf/data/list/${recordOfA()}?crfId=${demographics}`,
    ]) {
      expect((await get(s.nurseB, url)).status, url).toBe(404);
      expect((await get(s.nurseA, url)).status, url).toBe(200);
      expect((await get(s.monitor, url)).status, url).toBe(200);
    }
  });
});

describe('queries', () => {
  it('QRY-01: the query list and the waiting count hold the caller’s sites’ queries only', async () => {
    const ids = async (who: Who) =>
      (await get(who, `/api/business/doubts?studyId=${s.studyId}&pageNum=1&pageSize=50`)).body.data;
    const a = await ids(s.nurseA);
    expect(a.list.map((d: { doubtId: number }) => d.doubtId)).toEqual([doubtA]);
    expect(a.total).toBe(1);
    const b = await ids(s.nurseB);
    expect(b.list.map((d: { doubtId: number }) => d.doubtId)).toEqual([doubtB]);
    expect(b.total).toBe(1);
    expect((await ids(s.monitor)).total).toBe(2);
    const waiting = async (who: Who) =>
      (await get(who, `/api/business/doubts/count?studyId=${s.studyId}`)).body.data.waiting;
    expect(await waiting(s.nurseA)).toBe(1);
    expect(await waiting(s.nurseB)).toBe(1);
    expect(await waiting(s.monitor)).toBe(2);
  });

  it('QRY-21: a query by id is 404 for the other site, and cannot be answered from there', async () => {
    const other = await get(s.nurseB, `/api/business/doubt/${doubtA}`);
    expect(other.status).toBe(404);
    expect(JSON.stringify(other.body)).not.toContain('甲院');
    expect((await get(s.nurseA, `/api/business/doubt/${doubtA}`)).status).toBe(200);
    expect((await get(s.monitor, `/api/business/doubt/${doubtA}`)).status).toBe(200);
    const reply = await send(s.nurseB, 'PUT', '/api/business/doubt/reply', { doubtId: doubtA, content: '已核实' });
    expect(reply.status).toBe(404);
  });
});

describe('the audit trail', () => {
  const exportCsv = async (who: Who) =>
    (await raw(who, `/api/business/audit/export?studyId=${s.studyId}`)).body as string;

  it('the study’s trail CSV leaves out the other sites’ patients and keeps the set-up rows', async () => {
    const b = await exportCsv(s.nurseB);
    expect(b).toContain(s.patientB.identificationCode);
    expect(b).not.toContain(s.patientA.identificationCode);
    expect(b).toContain('添加项目人员');
    const a = await exportCsv(s.nurseA);
    expect(a).toContain(s.patientA.identificationCode);
    expect(a).not.toContain(s.patientB.identificationCode);
    const all = await exportCsv(s.monitor);
    expect(all).toContain(s.patientA.identificationCode);
    expect(all).toContain(s.patientB.identificationCode);
  });

  it('one row, a patient’s trail and a patient’s CSV are 404 from the other site', async () => {
    const [row] = await t.db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(eq(auditEvents.subjectRecordId, recordOfA()))
      .limit(1);
    const one = `/api/business/subjectRecord/operate?id=${row!.id}`;
    expect((await get(s.nurseB, one)).status).toBe(404);
    expect((await get(s.nurseA, one)).status).toBe(200);
    const trail = `/api/business/subjectRecord/operates?subjectRecordId=${recordOfA()}`;
    expect((await get(s.nurseB, trail)).status).toBe(404);
    expect((await get(s.nurseA, trail)).status).toBe(200);
    expect((await raw(s.nurseB, `/api/business/audit/export?subjectRecordId=${recordOfA()}`)).statusCode).toBe(404);
    expect((await raw(s.nurseB, `/api/business/audit/export?crfDataRecordId=${recordA}`)).statusCode).toBe(404);
    expect((await raw(s.nurseA, `/api/business/audit/export?crfDataRecordId=${recordA}`)).statusCode).toBe(200);
  });
});

describe('printing and files', () => {
  it('PRINT-12: printing the other site’s patient’s form is 404', async () => {
    const form = multipart({}, [{ fileName: '人口学资料.docx', data: await wordTemplate('患者：{subjectName}') }]);
    const up = await t.app.inject({
      method: 'POST',
      url: `/api/v1/business/crf/print/temp?crfId=${demographics}`,
      headers: { ...form.headers, authorization: `Bearer ${s.admin}` },
      payload: form.payload,
    });
    expect(up.statusCode, up.body).toBe(200);
    const url = `/api/v1/business/crf/print/word?subjectRecordId=${recordOfA()}&crfId=${demographics}&crfDataRecordId=${recordA}`;
    const other = await raw(s.nurseB, url);
    expect(other.statusCode).toBe(404);
    expect(other.json().msg).toBe('患者不存在');
    expect((await raw(s.nurseA, url)).statusCode).toBe(200);
    expect((await raw(s.monitor, url)).statusCode).toBe(200);
  });

  it('CONV-09: a file of the other site’s patient’s form is 404; her own site’s nurse and the monitor read it', async () => {
    const url = `/api/v1/fileupload/downfile?fileKey=${fileKey}`;
    const other = await raw(s.nurseB, url);
    expect(other.statusCode).toBe(404);
    expect(other.json().msg).toBe('文件不存在');
    expect((await raw(s.nurseA, url)).statusCode).toBe(200);
    expect((await raw(s.monitor, url)).statusCode).toBe(200);
  });
});
