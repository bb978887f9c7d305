import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, crfKey, type CrfDefinition } from '@ecrf/core';
import { importExcel, importOdm, importRedcapDictionary, readOdmClinicalData } from '@ecrf/core/interop';
import { crfDataRecords, crfStages, exportLogs } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import type { JobView } from '../jobs/job-queue.js';
import { readCsv } from '../redcap/redcap-csv.js';
import { loadProject, selectFields } from '../redcap/redcap-project.js';
import { exportRecords } from '../redcap/redcap-records-export.js';
import { importRecords } from '../redcap/redcap-records-import.js';
import { waitForJob } from './export.service.js';

/**
 * Data export through the HTTP API against the real database (PGlite, or PostgreSQL with TEST_DATABASE_URL):
 * every format read back by a parser of that format, the options, the permissions, the job and the export log.
 * Patients of the demo spine registry:
 *   A 张三 (ID number), vitals SBP 150 submitted, 人口学资料 汉族 with two comorbidities, lab and imaging dates one day
 *     apart, two follow-ups (ODI 30, 50)
 *   B 李四, vitals SBP 120 saved, 回族, one follow-up
 *   C 王五, nothing but 人口学资料
 */
let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};
const P: Record<'A' | 'B' | 'C', number> = { A: 0, B: 0, C: 0 };
const code: Record<'A' | 'B' | 'C', string> = { A: '', B: '', C: '' };

async function enrol(subjectName: string, gender: number, birth: string, extra: object = {}) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName,
    gender,
    birth,
    diseaseCode: 'LSS',
    mobile: '13800000009',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.subjectRecordId as number;
}

async function save(subjectRecordId: number, crf: string, values: object, submit = false) {
  const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: crfIds[crf],
    version: 0,
    values,
    submit,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
  P.A = await enrol('张三', 1, '1958-03-02', { idNumber: '11010519491231002X' });
  P.B = await enrol('李四', 0, '1990-07-15');
  P.C = await enrol('王五', 1, '1975-01-01');
  for (const k of ['A', 'B', 'C'] as const) {
    code[k] = (await t.call(admin, 'GET', `/api/business/subject/${P[k]}`)).body.data.identificationCode;
  }
  await save(P.A, '生命体征', { sbp: 150, dbp: 90, hr: 80 }, true);
  await save(P.B, '生命体征', { sbp: 120, dbp: 70 });
  await save(P.A, '人口学资料', {
    ethnic: 'han',
    comorbid: ['htn', 'dm'],
    history_note: '腰痛三年, "卧床"',
    height: 170,
  });
  await save(P.B, '人口学资料', { ethnic: 'hui', comorbid: ['op'], history_note: '第一行\n第二行' });
  await save(P.C, '人口学资料', { ethnic: 'han' });
  await save(P.A, '实验室检查', { lab_date: '2026-01-10', hb: 140 });
  await save(P.A, '影像学检查', { img_date: '2026-01-11', instability: '1' });
  await save(P.A, '术后随访', { fu_date: '2026-04-01', odi: 30 });
  await save(P.A, '术后随访', { fu_date: '2026-07-01', odi: 50 });
  await save(P.B, '术后随访', { fu_date: '2026-06-01', odi: 20 });
});
afterAll(() => t.close());

interface Done {
  job: JobView;
  file: Buffer;
  fileName: string;
  progress: number[];
}

/** The records of the REDCap export's zip (its other files: redcap-csv-rules.test.ts), without the byte-order mark. */
async function redcapRecords(file: Buffer): Promise<string> {
  const zip = await JSZip.loadAsync(file);
  return (await zip.file('records.csv')!.async('string')).replace(/^\uFEFF/, '');
}

/** Asks for an export, follows its job to the end (recording its progress) and downloads the file. */
async function exportFile(body: object, token = admin, api: 'v2' | 'v3' = 'v3'): Promise<Done> {
  const progress: number[] = [];
  const off = t.ctx.jobs.onProgress((j) => progress.push(j.progress));
  const res = await t.call(token, 'POST', `/api/${api}/business/search/export`, { studyId, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const jobId = res.body.data.jobId as string;
  const job = await waitForJob(t.ctx, jobId, 60_000);
  off();
  expect(job?.state, JSON.stringify(job)).toBe('done');
  const download = await t.app.inject({
    method: 'GET',
    url: `/api/system/jobs/${jobId}/result`,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(download.statusCode).toBe(200);
  const disposition = String(download.headers['content-disposition']);
  return {
    job: job!,
    file: download.rawPayload,
    fileName: decodeURIComponent(disposition.split("UTF-8''")[1] ?? ''),
    progress,
  };
}

const parseCsv = (file: Buffer) =>
  Papa.parse<Record<string, string>>(file.toString('utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  });

async function workbookOf(file: Buffer) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(file as unknown as ArrayBuffer);
  return wb;
}

/** A sheet's rows by the titles of its first header row (a form's sheet has the variable names as a second). */
function sheetRows(sheet: ExcelJS.Worksheet): Array<Record<string, unknown>> {
  const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  const headerRows = sheet.name === '数据字典' ? 1 : 2;
  const out: Array<Record<string, unknown>> = [];
  sheet.eachRow((row, n) => {
    if (n <= headerRows) return;
    const values = (row.values as unknown[]).slice(1);
    out.push(Object.fromEntries(header.map((h, i) => [h, values[i] ?? null])));
  });
  return out;
}

describe('formats, each read back by a parser of its format', () => {
  it('SRCH-05: v3 Excel runs as a job with progress to 100: one sheet per form, a data dictionary, repeatable records as rows with an instance and the stage as a column', async () => {
    const done = await exportFile({ format: 'excel' });
    expect(done.progress.at(-1)).toBe(100);
    expect(Math.max(...done.progress)).toBe(100);
    expect(done.fileName).toMatch(/\.xlsx$/);
    const wb = await workbookOf(done.file);
    const names = wb.worksheets.map((s) => s.name);
    expect(names).toContain('生命体征');
    expect(names).toContain('术后随访');
    expect(names.at(-1)).toBe('数据字典');
    const vitals = sheetRows(wb.getWorksheet('生命体征')!);
    const a = vitals.find((r) => r['编号'] === code.A)!;
    expect(a).toBeDefined();
    expect(Object.values(a)).toContain(150);
    expect(a['表单状态']).toBe('已提交');
    expect(a['阶段']).toBeTruthy();
    const followUps = sheetRows(wb.getWorksheet('术后随访')!).filter((r) => r['编号'] === code.A);
    expect(followUps.map((r) => r['记录序号'])).toEqual([1, 2]);
    const dict = sheetRows(wb.getWorksheet('数据字典')!);
    expect(dict.some((r) => r['变量名'] === 'sbp')).toBe(true);
    // Identifiers were not asked for.
    expect(Object.keys(a)).not.toContain('姓名');
  });

  it('SRCH-02: CSV wide has one row per patient and stage and one per repeating record; CSV long one row per value', async () => {
    const wide = parseCsv((await exportFile({ format: 'csvWide' })).file);
    expect(wide.errors).toEqual([]);
    expect(wide.meta.fields).toEqual(expect.arrayContaining(['subject_code', 'stage', 'crf', 'instance', 'sbp']));
    const aRows = wide.data.filter((r) => r.subject_code === code.A);
    expect(aRows.some((r) => r.sbp === '150')).toBe(true);
    expect(aRows.filter((r) => r.crf === String(crfIds['术后随访'])).map((r) => r.instance)).toEqual(['1', '2']);
    expect(wide.data.filter((r) => r.subject_code === code.C).length).toBeGreaterThan(0);
    // A multiple choice becomes one 0/1 column per option.
    const comorbid = wide.meta.fields!.filter((f) => f.startsWith('comorbid___'));
    expect(comorbid.length).toBeGreaterThan(1);
    const aDemo = aRows.find((r) => r.comorbid___htn !== '')!;
    expect(aDemo.comorbid___htn).toBe('1');
    expect(aDemo.history_note).toBe('腰痛三年, "卧床"');

    const long = parseCsv((await exportFile({ format: 'csvLong' })).file);
    expect(long.errors).toEqual([]);
    const sbp = long.data.find((r) => r.subject_code === code.A && r.item === 'sbp')!;
    expect(sbp.value).toBe('150');
    expect(long.data.filter((r) => r.subject_code === code.A && r.item === 'odi').map((r) => r.instance)).toEqual([
      '1',
      '2',
    ]);
    expect(long.data.find((r) => r.subject_code === code.A && r.item === 'comorbid')!.value).toBe('htn,dm');
  });

  it('SRCH-02: labels instead of codes', async () => {
    const codes = parseCsv((await exportFile({ format: 'csvLong' })).file).data;
    const labels = parseCsv((await exportFile({ format: 'csvLong', labels: true })).file).data;
    const ethnic = (rows: Array<Record<string, string>>) =>
      rows.find((r) => r.subject_code === code.A && r.item === 'ethnic')!.value;
    expect(ethnic(codes)).toBe('han');
    expect(ethnic(labels)).toBe('汉族');
    expect(labels.find((r) => r.subject_code === code.A && r.item === 'gender')!.value).toBe('男');
  });

  it('SRCH-02: SPSS and Stata: their own data files by default (.sav, .dta; read by PSPP and R in statistics-readers.interop.test.ts)', async () => {
    const sav = await exportFile({ format: 'spss' });
    expect(sav.fileName).toMatch(/\.sav$/);
    expect(sav.file.subarray(0, 4).toString('latin1')).toBe('$FL2');
    const dta = await exportFile({ format: 'stata' });
    expect(dta.fileName).toMatch(/\.dta$/);
    expect(dta.file.toString('latin1')).toMatch(/^<stata_dta><header><release>118<\/release>/);
    // One row per patient and stage or repeating record in both, as in the CSV wide file.
    const wideRows = parseCsv((await exportFile({ format: 'csvWide' })).file).data.length;
    expect([sav.job.result, dta.job.result]).toMatchObject([{ rows: wideRows }, { rows: wideRows }]);
  });

  it('SRCH-02: SPSS syntax + CSV: the syntax declares, labels and value-labels every variable of the data file', async () => {
    const done = await exportFile({ format: 'spssSyntax' });
    expect(done.fileName).toMatch(/\.zip$/);
    const zip = await JSZip.loadAsync(done.file);
    expect(Object.keys(zip.files).sort()).toEqual(['data.csv', 'syntax.sps']);
    const data = Papa.parse<string[]>(await zip.file('data.csv')!.async('string'), { skipEmptyLines: true });
    const header = data.data[0]!;
    const sps = await zip.file('syntax.sps')!.async('string');
    const block = (start: string) => sps.slice(sps.indexOf(start), sps.indexOf('\n.', sps.indexOf(start)) + 2);
    const declared = block('/VARIABLES=')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/)[0])
      .filter((n) => n && n !== '.');
    expect(declared).toEqual(header);
    const labelled = sps
      .slice(sps.indexOf('VARIABLE LABELS'), sps.indexOf('VALUE LABELS'))
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/)[0]);
    for (const name of header) expect(labelled).toContain(name);
    const valueLabels = sps.slice(sps.indexOf('VALUE LABELS'));
    expect(valueLabels).toMatch(/gender 0 '女' 1 '男'/);
    expect(valueLabels).toMatch(/comorbid___htn 1 '已选' 0 '未选'/);
    expect(valueLabels).toMatch(/ethnic 'han' '汉族'/);
    expect(sps).toMatch(/lab_date SDATE10/);
    // Codes, never labels, in the statistics data.
    expect(data.data.some((row) => row.includes('han'))).toBe(true);
    // GET DATA ends a case at any line end: a multi-line text is one line, its breaks spaces.
    const note = header.indexOf('history_note');
    expect(data.data.map((row) => row[note])).toContain('第一行 第二行');
    expect(data.data.every((row) => row.length === header.length)).toBe(true);
  });

  it('SRCH-02: Stata/R: a do-file labels every variable and defines numeric value labels; the R script makes factors', async () => {
    const zip = await JSZip.loadAsync((await exportFile({ format: 'stataSyntax' })).file);
    expect(Object.keys(zip.files).sort()).toEqual(['data.csv', 'labels.R', 'labels.do']);
    const header = Papa.parse<string[]>(await zip.file('data.csv')!.async('string')).data[0]!;
    const doFile = await zip.file('labels.do')!.async('string');
    const r = await zip.file('labels.R')!.async('string');
    for (const name of header) {
      expect(doFile).toContain(`label variable ${name} `);
      expect(r).toContain(`attr(data[["${name}"]], "label")`);
    }
    expect(doFile).toMatch(/label define lbl\d+ 0 "女" 1 "男", replace/);
    expect(doFile).toMatch(/label values gender lbl\d+/);
    expect(r).toContain('data[["ethnic"]] <- factor(data[["ethnic"]], levels = c("han"');
    expect(r).toContain('data[["lab_date"]] <- as.Date(data[["lab_date"]])');
    // The CSV keeps a multi-line text in quotes; Stata reads it as one field with bindquotes(strict).
    expect(doFile).toContain('bindquotes(strict)');
    const rows = Papa.parse<string[]>(await zip.file('data.csv')!.async('string'), { skipEmptyLines: true }).data;
    expect(rows.map((row) => row[header.indexOf('history_note')])).toContain('第一行\n第二行');
  });

  it('SRCH-02: CDISC ODM 1.3.2: our ODM importer reads the metadata back into the same forms, and the ClinicalData holds the values', async () => {
    const xml = (await exportFile({ format: 'odm' })).file.toString('utf8');
    expect(xml).toContain('ODMVersion="1.3.2"');
    const imported = importOdm(xml);
    expect(imported.issues.filter((i) => i.severity === 'error')).toEqual([]);
    const titles = imported.definitions.map((d: CrfDefinition) => d.title);
    expect(titles).toEqual(expect.arrayContaining(['生命体征', '术后随访']));
    const original = (await t.call(admin, 'GET', `/api/system/crf/${crfIds['生命体征']}`)).body.data;
    const definition = (original.definition ?? original) as CrfDefinition;
    const back = imported.definitions.find((d: CrfDefinition) => d.title === '生命体征')!;
    expect(back.children).toEqual(definition.children);
    const values = readOdmClinicalData(xml);
    const sbp = values.find((v) => v.subjectKey === code.A && v.itemOid.endsWith('.sbp'))!;
    expect(sbp.value).toBe('150');
    const odi = values.filter((v) => v.subjectKey === code.A && v.itemOid.endsWith('.odi'));
    expect(odi.map((v) => [v.formRepeatKey, v.value])).toEqual([
      ['1', '30'],
      ['2', '50'],
    ]);
    // A multiple choice is one 1/0 item per option.
    const comorbid = values.filter((v) => v.subjectKey === code.A && v.itemOid.includes('.comorbid___'));
    expect(comorbid.map((v) => [v.itemOid.split('___')[1], v.value])).toEqual([
      ['htn', '1'],
      ['dm', '1'],
      ['chd', '0'],
      ['op', '0'],
      ['other', '0'],
    ]);
  });

  it('SRCH-02: the REDCap CSV is the REDCap API mapping itself: read by its CSV reader, the same columns and rows as a flat record export, and a changed row imports back through the REDCap import', async () => {
    const csv = await redcapRecords((await exportFile({ format: 'redcap' })).file);
    const rows = readCsv(csv);
    const header = csv.split(/\r?\n/)[0]!.split(',');
    expect(header[0]).toBe('record_id');
    expect(header).toEqual(
      expect.arrayContaining(['redcap_event_name', 'redcap_repeat_instrument', 'redcap_repeat_instance']),
    );
    expect(header.some((h) => /^comorbid___/.test(h))).toBe(true);
    const access = {
      studyId,
      member: true,
      studyRoleId: null,
      permissions: [],
      all: true,
      timeZone: 'Asia/Shanghai',
      siteIds: null,
      ownSiteIds: [],
    };
    const { user: signedIn } = await t.login();
    const user = {
      userId: signedIn.userId,
      userName: '13800000000',
      name: '系统管理员',
      deptId: null,
      sessionId: '',
      admin: true,
      permissions: ['*:*:*'],
      setPasswordMust: false,
    };
    const caller = { tokenId: 0, user, access };
    const project = await loadProject(t.ctx, caller);
    const api = await exportRecords(t.ctx, project, selectFields(project, [], []), { records: [], label: false });
    expect(header).toEqual(api.columns.filter((c) => header.includes(c)));
    expect(rows).toEqual(api.rows.map((r) => Object.fromEntries(header.map((h) => [h, r[h] ?? '']))));
    expect(rows.find((r) => r.record_id === code.A && r.sbp)!.sbp).toBe('150');

    // A REDCap user's round trip: the file's row changed and imported back through the REDCap import.
    const bRow = rows.find((r) => r.record_id === code.B && r.sbp === '120')!;
    const imported = await importRecords(t.ctx, caller, project, [{ ...bRow, sbp: '125' }], {
      overwrite: false,
      reason: null,
    });
    expect(imported).toBe(1);
    const [vitals] = await t.db
      .select({ id: crfDataRecords.id, values: crfDataRecords.values, version: crfDataRecords.version })
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.subjectRecordId, P.B), eq(crfDataRecords.crfId, crfIds['生命体征']!)));
    expect(Number(vitals!.values.sbp)).toBe(125);
    // Back as it was, for the other tests.
    const back = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: P.B,
      crfId: crfIds['生命体征'],
      crfDataRecordId: vitals!.id,
      version: vitals!.version,
      values: { sbp: 120, dbp: 70 },
    });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
  });
});

describe('options', () => {
  it('SRCH-02: identifiers only when asked by a holder of 查看患者身份信息; refused to a member without it', async () => {
    const asked = parseCsv((await exportFile({ format: 'csvWide', identifiers: true })).file);
    expect(asked.meta.fields).toEqual(expect.arrayContaining(['subject_name', 'mobile', 'id_number', 'birth']));
    expect(asked.data.find((r) => r.subject_code === code.A)!.id_number).toBe('11010519491231002X');
    const notAsked = parseCsv((await exportFile({ format: 'csvWide' })).file);
    expect(notAsked.meta.fields).not.toContain('subject_name');
    expect(JSON.stringify(notAsked.data)).not.toContain('张三');

    const member = await addStudyMember(t, admin, studyId, '13300000021', {
      permissions: [crfKey(crfIds['生命体征']!, 'view')],
    });
    const refused = await t.call(member, 'POST', '/api/v3/business/search/export', {
      studyId,
      format: 'csvWide',
      identifiers: true,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toContain('身份信息');
  });

  it('SRCH-02: date shifting moves every date of a patient by one offset within ±N days, and the offset is never exported', async () => {
    const done = await exportFile({ format: 'csvWide', dateShiftDays: 30 });
    const rows = parseCsv(done.file);
    const aRows = rows.data.filter((r) => r.subject_code === code.A);
    const lab = aRows.find((r) => r.lab_date)!.lab_date!;
    const img = aRows.find((r) => r.img_date)!.img_date!;
    const days = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;
    const offset = days(lab) - days('2026-01-10');
    expect(offset).not.toBe(0);
    expect(Math.abs(offset)).toBeLessThanOrEqual(30);
    expect(days(img) - days('2026-01-11')).toBe(offset);
    expect(aRows.filter((r) => r.fu_date).map((r) => days(r.fu_date!))).toEqual([
      days('2026-04-01') + offset,
      days('2026-07-01') + offset,
    ]);
    const text = done.file.toString('utf8');
    // The unshifted date nowhere, unless a shifted date landed on it (an offset of −1 moves 01-11 to 01-10).
    const cells = new Set(rows.data.flatMap((r) => Object.values(r)));
    if (!cells.has('2026-01-10')) expect(text).not.toContain('2026-01-10');
    expect(text).not.toMatch(/shift|offset|偏移/i);
    const [log] = await t.db.select().from(exportLogs).where(eq(exportLogs.jobId, done.job.jobId));
    expect(JSON.stringify(log)).not.toMatch(new RegExp(`"${offset}"|offset`));

    const both = await t.call(admin, 'POST', '/api/v3/business/search/export', {
      studyId,
      format: 'csvWide',
      identifiers: true,
      dateShiftDays: 30,
    });
    expect(both.status).toBe(400);
  });

  it('SRCH-02: forms, stages and states narrow what is exported', async () => {
    const onlyVitals = parseCsv((await exportFile({ format: 'csvLong', crfIds: [crfIds['生命体征']] })).file).data;
    expect(new Set(onlyVitals.filter((r) => r.crf_id).map((r) => r.crf))).toEqual(new Set(['生命体征']));
    const submitted = parseCsv(
      (await exportFile({ format: 'csvLong', crfIds: [crfIds['生命体征']], states: ['submitted'] })).file,
    ).data.filter((r) => r.item === 'sbp');
    expect(submitted.map((r) => r.subject_code)).toEqual([code.A]);
    const [stage] = await t.db
      .select()
      .from(crfStages)
      .where(and(eq(crfStages.studyId, studyId), eq(crfStages.name, '术后随访')));
    const byStage = parseCsv((await exportFile({ format: 'csvLong', stageIds: [stage!.id] })).file).data;
    expect(new Set(byStage.filter((r) => r.crf_id).map((r) => r.crf))).toEqual(new Set(['术后随访']));
    const unfilled = await workbookOf(
      (await exportFile({ format: 'excel', crfIds: [crfIds['生命体征']], states: ['notFilled', 'saved', 'submitted'] }))
        .file,
    );
    const rows = sheetRows(unfilled.getWorksheet('生命体征')!);
    expect(rows.find((r) => r['编号'] === code.C)!['表单状态']).toBe('未填');
  });

  it('SRCH-02: the REDCap CSV keeps to the chosen forms and states: only records in a chosen state go out, each patient still a row, instances numbered as among all records', async () => {
    const read = async (body: object) =>
      readCsv(await redcapRecords((await exportFile({ format: 'redcap', ...body })).file));
    // Only A's vitals are submitted; everything else is saved.
    const submitted = await read({ states: ['submitted'] });
    expect(submitted.filter((r) => r.sbp).map((r) => [r.record_id, r.sbp])).toEqual([[code.A, '150']]);
    expect(submitted.some((r) => r.ethnic || r.odi || r.fu_date || r.lab_date)).toBe(false);
    expect(new Set(submitted.map((r) => r.record_id))).toEqual(new Set([code.A, code.B, code.C]));

    const saved = await read({ states: ['saved'] });
    expect(saved.filter((r) => r.sbp).map((r) => [r.record_id, r.sbp])).toEqual([[code.B, '120']]);
    expect(saved.filter((r) => r.odi).map((r) => [r.record_id, r.redcap_repeat_instance, r.odi])).toEqual([
      [code.A, '1', '30'],
      [code.A, '2', '50'],
      [code.B, '1', '20'],
    ]);
    expect(saved.find((r) => r.record_id === code.C && r.ethnic)!.ethnic).toBe('han');

    // Both states: the whole study, as before; with a form chosen, that form's columns only.
    const both = await read({ states: ['saved', 'submitted'] });
    expect(both.filter((r) => r.sbp).map((r) => r.sbp)).toEqual(['150', '120']);
    const vitals = await read({ crfIds: [crfIds['生命体征']], states: ['saved'] });
    expect(vitals.filter((r) => r.sbp).map((r) => [r.record_id, r.sbp])).toEqual([[code.B, '120']]);
    expect(Object.keys(vitals[0]!)).not.toContain('ethnic');
  });

  it('SRCH-05: v2 exports the patients of the current search: by its conditions or by the listed patients', async () => {
    const listed = parseCsv((await exportFile({ format: 'csvWide', subjectRecordIds: [P.B] }, admin, 'v2')).file);
    expect([...new Set(listed.data.map((r) => r.subject_code))]).toEqual([code.B]);
    const searched = parseCsv(
      (
        await exportFile(
          {
            format: 'csvWide',
            conditions: {
              join: 'and',
              groups: [
                {
                  join: 'and',
                  conditions: [
                    { kind: 'item', crfId: crfIds['生命体征'], itemName: 'sbp', operator: 'gt', values: ['130'] },
                  ],
                },
              ],
            },
          },
          admin,
          'v2',
        )
      ).file,
    );
    expect([...new Set(searched.data.map((r) => r.subject_code))]).toEqual([code.A]);
    const neither = await t.call(admin, 'POST', '/api/v2/business/search/export', { studyId, format: 'csvWide' });
    expect(neither.status).toBe(400);
  });

  it('SRCH-05: ?wait=true answers the file itself for a small export', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v3/business/search/export?wait=true',
      headers: { authorization: `Bearer ${admin}` },
      payload: { studyId, format: 'csvLong' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toContain('attachment');
    expect(res.headers['x-job-id']).toBeTruthy();
    expect(parseCsv(res.rawPayload).data.some((r) => r.item === 'sbp')).toBe(true);
  });
});

describe('permissions and the export log', () => {
  it('SRCH-02: a form the member may not view is never exported; asking for it is refused; a non-member gets 403', async () => {
    const member = await addStudyMember(t, admin, studyId, '13300000022', {
      permissions: [crfKey(crfIds['生命体征']!, 'view')],
    });
    const wb = await workbookOf((await exportFile({ format: 'excel' }, member)).file);
    expect(wb.worksheets.map((s) => s.name)).toEqual(['生命体征', '数据字典']);
    const long = parseCsv((await exportFile({ format: 'csvLong' }, member)).file).data;
    expect(new Set(long.filter((r) => r.crf_id).map((r) => r.crf))).toEqual(new Set(['生命体征']));
    const odm = (await exportFile({ format: 'odm' }, member)).file.toString('utf8');
    expect(odm).not.toContain('术后随访');
    const asked = await t.call(member, 'POST', '/api/v3/business/search/export', {
      studyId,
      format: 'excel',
      crfIds: [crfIds['术后随访']],
    });
    expect(asked.status).toBe(403);

    const other = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '另一个项目',
      studyCode: 'EXPORT-OTHER',
    });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const stranger = await addStudyMember(t, admin, other.body.data.id, '13300000023', { permissions: [] });
    const refused = await t.call(stranger, 'POST', '/api/v3/business/search/export', { studyId, format: 'excel' });
    expect(refused.status).toBe(403);
    const log = await t.call(stranger, 'GET', `/api/business/search/export/log?studyId=${studyId}`);
    expect(log.status).toBe(403);
  });

  it('SRCH-02: only the owner downloads the result; the export log row holds who, what, options, rows and the file SHA-256', async () => {
    const done = await exportFile({ format: 'csvLong', labels: true });
    const member = await addStudyMember(t, admin, studyId, '13300000024', {
      permissions: [crfKey(crfIds['生命体征']!, 'view'), buttonKey('business.subject.identifiers')],
    });
    const theirs = await t.call(member, 'GET', `/api/system/jobs/${done.job.jobId}/result`);
    expect(theirs.status).toBe(404);

    const [row] = await t.db.select().from(exportLogs).where(eq(exportLogs.jobId, done.job.jobId));
    expect(row).toMatchObject({ studyId, api: 'v3', format: 'csvLong', state: 'done' });
    expect(row!.sha256).toBe(crypto.createHash('sha256').update(done.file).digest('hex'));
    expect(row!.fileSize).toBe(done.file.length);
    expect(row!.rowCount).toBe(parseCsv(done.file).data.length);
    expect(row!.patientCount).toBe(3);
    expect(row!.options).toMatchObject({ labels: true, identifiers: false, dateShiftDays: null });

    const list = await t.call(admin, 'GET', `/api/business/search/export/log?studyId=${studyId}&pageNum=1&pageSize=5`);
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBeGreaterThan(5);
    expect(list.body.data.list).toHaveLength(5);
    expect(list.body.data.list[0]).toMatchObject({ jobId: done.job.jobId, sha256: row!.sha256 });
    // A member who is not a manager reads only their own exports.
    const own = await t.call(member, 'GET', `/api/business/search/export/log?studyId=${studyId}`);
    expect(own.status).toBe(200);
    expect(own.body.data.total).toBe(0);
  });
});

describe('the CRF definition export', () => {
  it('SRCH-08, SRCH-09: POST /api/system/crf/export takes { crfId, version?, format } and answers the definition file in json, excel, odm or redcap, each read back by its importer', async () => {
    const crfId = crfIds['人口学资料']!;
    const definition = (await t.call(admin, 'GET', `/api/system/crf/${crfId}`)).body.data;
    const stored = (definition.definition ?? definition) as CrfDefinition;
    const get = async (format: string, version?: number) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/system/crf/export',
        headers: { authorization: `Bearer ${admin}` },
        payload: { crfId, format, ...(version ? { version } : {}) },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-disposition']).toContain('attachment');
      return res.rawPayload;
    };
    const json = JSON.parse((await get('json')).toString('utf8')) as CrfDefinition;
    expect(json.title).toBe('人口学资料');
    expect(json.children).toEqual(stored.children);
    expect((await get('json', 1)).length).toBeGreaterThan(0);
    const excel = await importExcel(await get('excel'));
    expect(excel.definitions[0]!.title).toBe('人口学资料');
    const odm = importOdm((await get('odm')).toString('utf8'));
    expect(odm.definitions[0]!.children).toEqual(stored.children);
    const redcap = importRedcapDictionary((await get('redcap')).toString('utf8'));
    expect(redcap.definitions.length).toBeGreaterThan(0);
    const bad = await t.call(admin, 'POST', '/api/system/crf/export', { crfId, format: 'pdf' });
    expect(bad.status).toBe(400);
  });
});
