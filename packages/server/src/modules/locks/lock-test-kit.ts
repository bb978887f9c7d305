import { eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { expect } from 'vitest';
import { queryRows } from '../../db/client.js';
import { crfDataRecords } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import type { TestApp } from '../../test/test-app.js';
import type { TwoSiteStudy } from '../../test/two-sites.js';

/**
 * The lock × writer test's kit (lock-writers.test.ts): a fresh patient with everything the writers change, the calls
 * that are not plain JSON (the patient side, the Excel import, the REDCap API) and the study's fingerprint.
 */

const env = {} as { t: TestApp; s: TwoSiteStudy; apiToken: string };
/** The app, the two-site study and the REDCap token the kit works in (set in the test's beforeAll). */
export function useLockEnv(next: typeof env) {
  Object.assign(env, next);
}
export const vitals = () => env.s.crfIds['生命体征']!;

/** One locked patient's world: the casebook, its form record, queries, a visit, a medical record, a portal session. */
export interface Fixture {
  subjectId: number;
  subjectRecordId: number;
  code: string;
  /** The 生命体征 record: what a form lock locks. */
  recordId: number;
  /** An open query to reply to, and one to close. */
  replyDoubt: number;
  closeDoubt: number;
  visitId: number;
  medicalId: number;
  portalToken: string;
  /** A deleted casebook at the same site, to restore. */
  deletedRecordId: number;
}

export type Outcome = { status: number; msg: string; ok: boolean };

export const http = async (token: string, method: string, url: string, body?: unknown): Promise<Outcome> => {
  const res = await env.t.call(token, method, url, body);
  return { status: res.status, msg: res.body.msg, ok: res.status === 200 };
};

export async function patientCall(token: string, method: string, url: string, payload?: unknown): Promise<Outcome> {
  const res = await env.t.app.inject({
    method: method as 'POST',
    url,
    headers: { 'x-patient-token': token },
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
  const body = res.json() as { msg: string };
  return { status: res.statusCode, msg: body.msg, ok: res.statusCode === 200 };
}

export async function version(recordId: number) {
  const [row] = await env.t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, recordId));
  return row!.version;
}

let counter = 0;
/** How many fixtures were made: names new patients apart. */
export const fixtureCount = () => counter;
export async function enrol(name: string) {
  const res = await env.t.call(env.s.admin, 'POST', '/api/business/subject', {
    studyId: env.s.studyId,
    subjectName: name,
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
    deptId: env.s.siteA,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: number; subjectRecordId: number; identificationCode: string };
}

export async function fixture(): Promise<Fixture> {
  counter += 1;
  const p = await enrol(`锁定患者${counter}`);
  const saved = await env.t.call(env.s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: p.subjectRecordId,
    crfId: vitals(),
    version: 0,
    values: { sbp: '130', dbp: '80', hr: '70' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  const recordId = saved.body.data.crfDataRecordId as number;
  const doubt = async (itemName: string) => {
    const res = await env.t.call(env.s.admin, 'POST', '/api/business/doubt/open', {
      crfDataRecordId: recordId,
      itemName,
      doubtDescription: '请核实',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.doubtId as number;
  };
  const visit = await env.t.call(env.s.admin, 'PUT', '/api/business/subject/follow/custom', {
    subjectRecordId: p.subjectRecordId,
    visitName: '计划外随访',
    plannedDate: '2026-12-01',
    crfIds: [env.s.crfIds['术后随访']],
  });
  expect(visit.status, JSON.stringify(visit.body)).toBe(200);
  const medical = await env.t.call(env.s.admin, 'POST', '/api/v1/medical', {
    studyId: env.s.studyId,
    subjectId: p.id,
    title: '入院记录',
    category: '入院记录',
  });
  expect(medical.status, JSON.stringify(medical.body)).toBe(200);
  const code = await env.t.call(env.s.admin, 'POST', '/api/business/wechat/bind-code', {
    studyId: env.s.studyId,
    subjectId: p.id,
  });
  expect(code.status, JSON.stringify(code.body)).toBe(200);
  const bound = await env.t.app.inject({
    method: 'POST',
    url: '/api/ignore/patient/bind',
    payload: { studyId: env.s.studyId, code: code.body.data.code },
  });
  expect(bound.statusCode, bound.body).toBe(200);
  const gone = await enrol(`已删除患者${counter}`);
  const deleted = await env.t.call(
    env.s.admin,
    'DELETE',
    `/api/business/subjectRecord?subjectRecordId=${gone.subjectRecordId}&reason=${encodeURIComponent('重复录入')}`,
  );
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
  return {
    subjectId: p.id,
    subjectRecordId: p.subjectRecordId,
    code: p.identificationCode,
    recordId,
    replyDoubt: await doubt('dbp'),
    closeDoubt: await doubt('hr'),
    visitId: visit.body.data.followRecordId,
    medicalId: medical.body.data.id,
    portalToken: (bound.json() as { data: { token: string } }).data.token,
    deletedRecordId: gone.subjectRecordId,
  };
}

export async function importRows(f: Fixture, hr: number): Promise<Outcome> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('生命体征');
  ws.addRow(['编号', 'hr']);
  ws.addRow([f.code, hr]);
  const file = Buffer.from(await wb.xlsx.writeBuffer());
  const body = multipart({}, [{ fileName: '导入.xlsx', data: file }]);
  const res = await env.t.app.inject({
    method: 'POST',
    url: `/api/business/import/multi_crf_sheet/multi_thread?studyId=${env.s.studyId}&submitType=0&mode=patient`,
    headers: { ...body.headers, authorization: `Bearer ${env.s.admin}` },
    payload: body.payload,
  });
  const result = (res.json() as { data: { result: { importedPatients: number; errors: Array<{ message: string }> } } })
    .data.result;
  return { status: res.statusCode, msg: result.errors[0]?.message ?? '', ok: result.importedPatients === 1 };
}

export async function redcapImport(f: Fixture, hr: string): Promise<Outcome> {
  const form = new URLSearchParams({
    token: env.apiToken,
    content: 'record',
    action: 'import',
    format: 'json',
    data: JSON.stringify([{ record_id: f.code, hr }]),
  });
  const res = await env.t.app.inject({
    method: 'POST',
    url: '/api/redcap',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
  const ok = res.statusCode === 200;
  return { status: res.statusCode, msg: ok ? '' : (res.json() as { error: string }).error, ok };
}

const STUDY_TABLES = [
  'audit_events',
  'crf_data_records',
  'subject_records',
  'subjects',
  'doubts',
  'doubt_messages',
  'item_comments',
  'follow_records',
  'follow_record_crfs',
  'medical_records',
  'randomizations',
  'randomization_studies',
  'signatures',
];

/** Every row of the study's patient tables, hashed per table: "nothing was written" is "no hash changed". */
export async function fingerprint() {
  const [row] = await queryRows<Record<string, string>>(
    env.t.db,
    sql`select ${sql.join(
      STUDY_TABLES.map(
        (table) =>
          sql`(select md5(coalesce(string_agg(x::text, '|' order by x::text), '')) from ${sql.identifier(table)} x
            where x.study_id = ${env.s.studyId}) as ${sql.identifier(table)}`,
      ),
      sql`, `,
    )}`,
  );
  return row!;
}
