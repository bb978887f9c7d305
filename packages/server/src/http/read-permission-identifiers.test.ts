import { and, desc, eq } from 'drizzle-orm';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, crfKey, IDENTIFIER_MASK } from '@ecrf/core';
import { auditEvents } from '../db/schema/index.js';
import { multipart } from '../test/multipart.js';
import { wordTemplate } from '../test/word-template.js';
import { CONTACTS } from '../test/identifier-form.js';
import { createTestApp, type TestApp } from '../test/test-app.js';
import { addStudyMember } from '../test/study-member.js';
import { openDemoStudy } from '../test/demo.js';

/**
 * PIPL: CRF items flagged `identifier` are read like the patient's own identifiers, only with the study button
 * 查看患者身份信息 (business.subject.identifiers). The matrix: every answer that carries form values × (a member
 * who may view and save every form, the same member holding 查看患者身份信息). Without it an identifier reads as
 * the mask ****** (or is left out of an export), with it in clear; the other items read the same for both.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let crfId: number;
let subjectRecordId: number;
let recordId: number;
let doubtId: number;
let demographicsCrfId: number;
let trailRowId: number;
const tokens = { masked: '', clear: '' };

/** Every identifier value this patient's casebook held, current or past (a deleted record's included). */
const SECRET = /ZY-|王秘密/;
beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  demographicsCrfId = demo.crfIds['人口学资料']!;
  const uploaded = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: CONTACTS });
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
  crfId = uploaded.body.data.crfs[0].id;
  const form = multipart({}, [
    {
      fileName: '联系信息.docx',
      data: await wordTemplate('住院号：{hospital_no} 身高：{height} {#family}{who}（{rel}）{/family}'),
    },
  ]);
  const template = await t.app.inject({
    method: 'POST',
    url: `/api/v1/business/crf/print/temp?crfId=${crfId}`,
    headers: { ...form.headers, authorization: `Bearer ${admin}` },
    payload: form.payload,
  });
  expect(template.statusCode, template.body).toBe(200);

  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '孙七',
    gender: 1,
    diseaseCode: 'LSS',
  });
  subjectRecordId = enrolled.body.data.subjectRecordId;
  const save = async (values: object, crfDataRecordId?: number, version = 0) => {
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId,
      crfDataRecordId,
      version,
      values,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.crfDataRecordId as number;
  };
  // A record deleted (its snapshot stays in the trail), then the live one, saved and changed.
  const first = await save({ hospital_no: 'ZY-DELETED-0001', height: 170 });
  const deleted = await t.call(admin, 'DELETE', `/api/business/crf/data?crfDataRecordId=${first}&reason=录错患者`);
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
  recordId = await save({ hospital_no: 'ZY-OLD-1111', height: 171, family: [{ who: '王秘密', rel: '父' }] });
  await save({ hospital_no: 'ZY-SECRET-7301', height: 172, family: [{ who: '王秘密', rel: '父' }] }, recordId, 1);
  const opened = await t.call(admin, 'POST', '/api/business/doubt/open', {
    crfDataRecordId: recordId,
    itemName: 'hospital_no',
    doubtDescription: '请核对住院号',
  });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  doubtId = opened.body.data.doubtId;
  const [row] = await t.db
    .select({ id: auditEvents.id })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.crfDataRecordId, recordId),
        eq(auditEvents.itemName, 'hospital_no'),
        eq(auditEvents.action, 'item.update'),
      ),
    )
    .orderBy(desc(auditEvents.id));
  trailRowId = row!.id;

  const demoForms = Object.values(demo.crfIds).concat(crfId);
  const work = [
    ...demoForms.flatMap((id) => [crfKey(id, 'view'), crfKey(id, 'save')]),
    // Monitors read the whole study's trail as a CSV.
    buttonKey('business.crf.sdv'),
  ];
  tokens.masked = await addStudyMember(t, admin, studyId, '13400000001', { permissions: work });
  tokens.clear = await addStudyMember(t, admin, studyId, '13400000002', {
    permissions: [...work, buttonKey('business.subject.identifiers')],
  });
});
afterAll(() => t.close());

/** An answer as text: JSON, CSV and XML as they are; Word, Excel and zip files by the text of their parts. */
async function textOf(res: { headers: Record<string, unknown>; rawPayload: Buffer; body: string }): Promise<string> {
  if (res.rawPayload.subarray(0, 4).toString('latin1') !== 'PK\x03\x04') return res.body;
  const zip = await JSZip.loadAsync(res.rawPayload);
  const parts = await Promise.all(Object.values(zip.files).map((f) => (f.dir ? '' : f.async('string'))));
  return parts.join('\n');
}

async function answer(token: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
  expect(res.statusCode, `${url} ${res.body.slice(0, 300)}`).toBe(200);
  return textOf(res);
}

const EXPORT_FORMATS = [
  'excel',
  'csvWide',
  'csvLong',
  'spss',
  'stata',
  'spssSyntax',
  'stataSyntax',
  'odm',
  'redcap',
] as const;

/** Each answer carrying this casebook's values, as one member reads it. */
async function answers(token: string, identifiers: boolean) {
  const get = (url: string) => answer(token, 'GET', url);
  const out: Record<string, string> = {
    'form page': await get(`/api/v3/business/crf/${subjectRecordId}?crfId=${crfId}`),
    'record list': await get(`/api/business/crf/data/list/${subjectRecordId}?crfId=${crfId}`),
    overview: await get(`/api/v3/business/overview/${subjectRecordId}`),
    print: await get(`/api/v1/business/crf/print/word?subjectRecordId=${subjectRecordId}&crfId=${crfId}`),
    'item history': await get(`/api/business/crf/audit?crfDataRecordId=${recordId}&itemName=hospital_no`),
    'record history': await get(`/api/business/crf/audit?crfDataRecordId=${recordId}`),
    'patient trail': await get(`/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageSize=100`),
    'one trail row': await get(`/api/business/subjectRecord/operate?id=${trailRowId}`),
    'patient trail CSV': await get(`/api/business/audit/export?subjectRecordId=${subjectRecordId}`),
    'record trail CSV': await get(`/api/business/audit/export?crfDataRecordId=${recordId}`),
    'study trail CSV': await get(`/api/business/audit/export?studyId=${studyId}`),
    query: await get(`/api/business/doubt/${doubtId}`),
    'query list': await get(`/api/business/doubts?studyId=${studyId}&subjectRecordId=${subjectRecordId}`),
  };
  for (const format of EXPORT_FORMATS) {
    out[`export ${format}`] = await answer(token, 'POST', '/api/v3/business/search/export?wait=true', {
      studyId,
      format,
      crfIds: [crfId],
      identifiers,
    });
  }
  const apiToken = (await t.call(token, 'POST', '/api/system/user/profile/apiToken', { studyId })).body.data.token;
  const redcap = await t.app.inject({
    method: 'POST',
    url: '/api/redcap',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token: apiToken, content: 'record', format: 'csv', type: 'flat' }).toString(),
  });
  expect(redcap.statusCode, redcap.body).toBe(200);
  out['REDCap API records'] = redcap.body;
  return out;
}

/** The answers the matrix reads: the form page's reads, the trail, queries, exports and the REDCap API. */
const ANSWERS = [
  'form page',
  'record list',
  'overview',
  'print',
  'item history',
  'record history',
  'patient trail',
  'one trail row',
  'patient trail CSV',
  'record trail CSV',
  'study trail CSV',
  'query',
  'query list',
  ...EXPORT_FORMATS.map((f) => `export ${f}`),
  'REDCap API records',
];
/** Where the form shows as on the page, the mask stands where the value was (the rest leave identifiers out). */
const SHOWS_MASK = new Set([
  'form page',
  'overview',
  'print',
  'item history',
  'patient trail',
  'one trail row',
  'query',
]);

describe('identifier items × 查看患者身份信息', () => {
  const read: Record<'masked' | 'clear', Record<string, string>> = { masked: {}, clear: {} };
  beforeAll(async () => {
    read.masked = await answers(tokens.masked, false);
    read.clear = await answers(tokens.clear, true);
  });

  it('the matrix covers every answer read', () => {
    expect(Object.keys(read.masked).sort()).toEqual([...ANSWERS].sort());
  });

  it.each(ANSWERS)('%s: masked or left out without the permission, in clear with it', (name) => {
    const masked = read.masked[name]!;
    expect(masked).not.toMatch(SECRET);
    if (SHOWS_MASK.has(name)) expect(masked).toContain(IDENTIFIER_MASK);
    const clear = read.clear[name]!;
    // The current values (the lists and the REDCap files hold only those); the trail and queries older ones too.
    expect(clear).toMatch(/ZY-SECRET-7301|ZY-OLD-1111/);
    expect(clear).not.toContain(IDENTIFIER_MASK);
  });

  it('the other items read the same for both', () => {
    for (const name of ['form page', 'overview', 'print', 'export csvLong', 'REDCap API records']) {
      expect(read.masked[name], name).toContain('172');
    }
    expect(JSON.parse(read.masked['form page']!).data.crfDataRecord.values).toEqual({
      hospital_no: IDENTIFIER_MASK,
      height: '172',
      family: [{ who: IDENTIFIER_MASK, rel: '父' }],
    });
    expect(JSON.parse(read.clear['form page']!).data.crfDataRecord.values).toEqual({
      hospital_no: 'ZY-SECRET-7301',
      height: '172',
      family: [{ who: '王秘密', rel: '父' }],
    });
    // A list group's identifier column and a deleted record's snapshot are identifiers too.
    expect(read.clear['export csvLong']).toContain('王秘密');
    expect(read.clear['patient trail']).toContain('ZY-DELETED-0001');
    expect(read.masked['patient trail']).not.toContain('ZY-DELETED-0001');
  });

  it('an export leaves identifier items out unless they are asked for, which needs the permission', async () => {
    const notAsked = await answer(tokens.clear, 'POST', '/api/v3/business/search/export?wait=true', {
      studyId,
      format: 'csvLong',
      crfIds: [crfId],
    });
    expect(notAsked).not.toMatch(SECRET);
    expect(notAsked).toContain('172');
    const asked = await t.call(tokens.masked, 'POST', '/api/v3/business/search/export', {
      studyId,
      format: 'csvLong',
      identifiers: true,
    });
    expect(asked.status).toBe(403);
  });

  it('data retrieval: without the permission an identifier item is not offered, and a condition or column on it is a 403', async () => {
    const dics = async (token: string) =>
      (await t.call(token, 'GET', `/api/business/search/dics?studyId=${studyId}`)).body.data.crfs
        .find((c: { crfId: number }) => c.crfId === crfId)
        .items.map((i: { name: string }) => i.name);
    expect(await dics(tokens.masked)).toEqual(['height', 'rel']);
    expect(await dics(tokens.clear)).toEqual(['hospital_no', 'height', 'who', 'rel']);
    const search = (token: string, body: object) =>
      t.call(token, 'POST', '/api/business/search/v2', {
        studyId,
        conditions: { join: 'and', groups: [] },
        columns: [],
        pageNum: 1,
        pageSize: 100,
        ...body,
      });
    const condition = (itemName: string) => ({
      conditions: {
        join: 'and',
        groups: [{ join: 'and', conditions: [{ kind: 'item', crfId, itemName, operator: 'notEmpty', values: [] }] }],
      },
    });
    const column = (itemName: string) => ({ columns: [{ kind: 'item', crfId, itemName }] });
    for (const itemName of ['hospital_no', 'who']) {
      for (const body of [condition(itemName), column(itemName)]) {
        const res = await search(tokens.masked, body);
        expect(res.status, JSON.stringify(body)).toBe(403);
        expect(res.body.msg).toBe('无权按患者身份信息检索或显示（需要“查看患者身份信息”权限）');
        expect(JSON.stringify(res.body)).not.toMatch(SECRET);
      }
    }
    const plain = await search(tokens.masked, { ...condition('rel'), ...column('height') });
    expect(plain.status).toBe(200);
    expect(JSON.stringify(plain.body.data.list)).toContain('172');
    const clear = await search(tokens.clear, {
      ...condition('hospital_no'),
      columns: [
        { kind: 'item', crfId, itemName: 'hospital_no' },
        { kind: 'item', crfId, itemName: 'who' },
      ],
    });
    expect(clear.status).toBe(200);
    expect(JSON.stringify(clear.body.data.list)).toMatch(/ZY-SECRET-7301.*王秘密/);
  });

  it("a form item holding one of the patient's identifiers (人口学资料's 出生日期, patientField birth) is masked as the patient list masks it", async () => {
    const patient = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '周八',
      gender: 1,
      birth: '1958-03-17',
      diseaseCode: 'LSS',
    });
    expect(patient.status, JSON.stringify(patient.body)).toBe(200);
    const demographics = demographicsCrfId;
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: patient.body.data.subjectRecordId,
      crfId: demographics,
      version: 0,
      values: { sex: '1', birth: '1958-03-17' },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const url = `/api/v3/business/crf/${patient.body.data.subjectRecordId}?crfId=${demographics}`;
    const masked = await answer(tokens.masked, 'GET', url);
    expect(masked).not.toContain('1958-03-17');
    expect(masked).toContain(IDENTIFIER_MASK);
    // The age calculated from it is no identifier: it reads the same for both.
    expect(JSON.parse(masked).data.crfDataRecord.values).toMatchObject({ sex: '1', birth: IDENTIFIER_MASK });
    const clear = await answer(tokens.clear, 'GET', url);
    expect(JSON.parse(clear).data.crfDataRecord.values).toMatchObject({ sex: '1', birth: '1958-03-17' });
    expect(JSON.parse(clear).data.crfDataRecord.values.age).toBe(JSON.parse(masked).data.crfDataRecord.values.age);
  });
});
