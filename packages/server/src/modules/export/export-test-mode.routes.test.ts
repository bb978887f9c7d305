import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_EXPORT_NOTICE } from '@ecrf/core';
import { readOdmClinicalData } from '@ecrf/core/interop';
import { exportLogs, studies, subjects, subjectRecords } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { readCsv } from '../redcap/redcap-csv.js';

/**
 * Exports of a study in 测试 are test data and say so: the file name starts with 测试数据_, a CSV and each Excel
 * sheet has a first row saying 测试数据, the formats a first row would break (SPSS, Stata, ODM, REDCap) say it in
 * their own label or comment; the export log marks the row. A production study's export never holds its test
 * patients (subjects.test). The demo study is production; it is put into 测试 here by its `mode`.
 *   R 张三: a real patient, vitals SBP 150
 *   T 测试甲: a test patient (subjects.test), vitals SBP 99
 */
let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number> = {};
const code = { R: '', T: '' };

async function enrol(subjectName: string) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName,
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { subjectRecordId: number; identificationCode: string };
}

async function saveVitals(subjectRecordId: number, sbp: number) {
  const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: crfIds['生命体征'],
    version: 0,
    values: { sbp, dbp: 80 },
    submit: true,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const setMode = (mode: 'test' | 'production') => t.db.update(studies).set({ mode }).where(eq(studies.studyId, studyId));

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const real = await enrol('张三');
  const test = await enrol('测试甲');
  code.R = real.identificationCode;
  code.T = test.identificationCode;
  await saveVitals(real.subjectRecordId, 150);
  await saveVitals(test.subjectRecordId, 99);
  // A test patient of the production study (entered against drafts), whatever the enrolment route answers.
  const [record] = await t.db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, test.subjectRecordId));
  await t.db.update(subjects).set({ test: true }).where(eq(subjects.id, record!.subjectId));
});
afterAll(() => t.close());

/** A small export answered by the route itself (`?wait=true`): the file, its name and its job. */
async function exported(format: string, body: object = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v3/business/search/export?wait=true',
    headers: { authorization: `Bearer ${admin}` },
    payload: { studyId, format, ...body },
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  expect(String(res.headers['content-disposition']), res.body.slice(0, 300)).toContain('attachment');
  return {
    file: res.rawPayload,
    fileName: decodeURIComponent(String(res.headers['content-disposition']).split("UTF-8''")[1] ?? ''),
    jobId: String(res.headers['x-job-id']),
  };
}

const lines = (file: Buffer) =>
  file
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split('\r\n');
const csvRows = (text: string) => Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;

async function workbookOf(file: Buffer) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(file as unknown as ArrayBuffer);
  return wb;
}

/** The file label of a .sav: 64 bytes after the magic, product, five numbers, the bias and the creation time. */
const savFileLabel = (file: Buffer) =>
  file
    .subarray(4 + 60 + 5 * 4 + 8 + 17, 4 + 60 + 5 * 4 + 8 + 17 + 64)
    .toString('utf8')
    .trimEnd();

/** The data label of a format-118 .dta (its header's <label>: a 2-byte length, then UTF-8). */
function dtaLabel(file: Buffer) {
  const at = file.indexOf('<label>') + '<label>'.length;
  return file.subarray(at + 2, at + 2 + file.readUInt16LE(at)).toString('utf8');
}

async function logOf(jobId: string) {
  const [row] = await t.db.select().from(exportLogs).where(eq(exportLogs.jobId, jobId));
  return row!;
}

describe('a production study', () => {
  it('exports without its test patients, unmarked: no 测试数据 in the name, the header first, the log row not test', async () => {
    await setMode('production');
    const csv = await exported('csvWide');
    expect(csv.fileName).not.toContain('测试数据');
    expect(lines(csv.file)[0]).toMatch(/^subject_code,/);
    const codes = csvRows(lines(csv.file).join('\r\n')).map((r) => r.subject_code);
    expect(codes).toContain(code.R);
    expect(codes).not.toContain(code.T);
    expect(await logOf(csv.jobId)).toMatchObject({ test: false, patientCount: 1 });

    const long = await exported('csvLong');
    expect(long.file.toString('utf8')).not.toContain(code.T);
    const wb = await workbookOf((await exported('excel')).file);
    const vitals = wb.getWorksheet('生命体征')!;
    expect(vitals.getRow(1).getCell(1).value).toBe('编号');
    const sheetCodes: unknown[] = [];
    vitals.eachRow((row, n) => n > 2 && sheetCodes.push(row.getCell(1).value));
    expect(sheetCodes).toEqual([code.R]);
    const odm = (await exported('odm')).file.toString('utf8');
    expect(odm).not.toContain('测试数据');
    expect(new Set(readOdmClinicalData(odm).map((v) => v.subjectKey))).toEqual(new Set([code.R]));
    const zip = await JSZip.loadAsync((await exported('redcap')).file);
    const records = readCsv((await zip.file('records.csv')!.async('string')).replace(/^\uFEFF/, ''));
    expect(new Set(records.map((r) => r.record_id))).toEqual(new Set([code.R]));
    expect(await zip.file('README.txt')!.async('string')).not.toContain('测试数据');
    const sav = (await exported('spss')).file;
    expect(savFileLabel(sav)).not.toContain('测试数据');
  });

  it('a list of patients (v2) naming a test patient still leaves it out', async () => {
    await setMode('production');
    const ids = await t.db
      .select({ id: subjectRecords.id })
      .from(subjectRecords)
      .where(eq(subjectRecords.studyId, studyId));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v2/business/search/export?wait=true',
      headers: { authorization: `Bearer ${admin}` },
      payload: { studyId, format: 'csvWide', subjectRecordIds: ids.map((r) => r.id) },
    });
    expect(res.statusCode).toBe(200);
    const codes = csvRows(res.body.replace(/^\uFEFF/, '')).map((r) => r.subject_code);
    expect(codes).toEqual([code.R]);
  });
});

describe('a study in 测试', () => {
  it('CSV wide and long: 测试数据_ in the file name, the first row says 测试数据, every patient exported, the log row is test', async () => {
    await setMode('test');
    for (const format of ['csvWide', 'csvLong']) {
      const done = await exported(format);
      expect(done.fileName, format).toMatch(/^测试数据_.*\.csv$/);
      const [first, header, ...rest] = lines(done.file);
      expect(first, format).toBe(TEST_EXPORT_NOTICE);
      expect(header, format).toMatch(/^subject_code,/);
      const data = csvRows([header, ...rest].join('\r\n'));
      expect(new Set(data.map((r) => r.subject_code)), format).toEqual(new Set([code.R, code.T]));
      expect(await logOf(done.jobId), format).toMatchObject({ test: true, state: 'done', patientCount: 2 });
    }
    const list = await t.call(admin, 'GET', `/api/business/search/export/log?studyId=${studyId}&pageNum=1&pageSize=1`);
    expect(list.body.data.list[0]).toMatchObject({ format: 'csvLong', test: true });
  });

  it('Excel: every sheet, the data dictionary too, starts with a row saying 测试数据 above its headers, frozen with them', async () => {
    await setMode('test');
    const done = await exported('excel');
    expect(done.fileName).toMatch(/^测试数据_.*\.xlsx$/);
    const wb = await workbookOf(done.file);
    for (const sheet of wb.worksheets) {
      expect(sheet.getRow(1).getCell(1).value, sheet.name).toBe(TEST_EXPORT_NOTICE);
    }
    const vitals = wb.getWorksheet('生命体征')!;
    expect(vitals.getRow(2).getCell(1).value).toBe('编号');
    expect(vitals.getRow(3).getCell(1).value).toBe('subject_code');
    expect(vitals.views[0]).toMatchObject({ state: 'frozen', ySplit: 3 });
    const codes: unknown[] = [];
    vitals.eachRow((row, n) => n > 3 && codes.push(row.getCell(1).value));
    expect(new Set(codes)).toEqual(new Set([code.R, code.T]));
    expect(wb.getWorksheet('数据字典')!.getRow(2).getCell(1).value).toBe('工作表');
  });

  it('SPSS .sav and Stata .dta: the data set label says 测试数据 (no first row in a data file), and the name', async () => {
    await setMode('test');
    const sav = await exported('spss');
    expect(sav.fileName).toMatch(/^测试数据_.*\.sav$/);
    expect(savFileLabel(sav.file)).toMatch(/^测试数据：/);
    const dta = await exported('stata');
    expect(dta.fileName).toMatch(/^测试数据_.*\.dta$/);
    expect(dtaLabel(dta.file)).toMatch(/^测试数据：/);
  });

  it('SPSS and Stata syntax zips: data.csv keeps its header in line 1; the syntax says 测试数据 in a comment and sets the file / data label', async () => {
    await setMode('test');
    const spss = await exported('spssSyntax');
    expect(spss.fileName).toMatch(/^测试数据_.*\.zip$/);
    const a = await JSZip.loadAsync(spss.file);
    expect(await a.file('data.csv')!.async('string')).toMatch(/^subject_code,/);
    const sps = await a.file('syntax.sps')!.async('string');
    expect(sps.split('\n')[1]).toBe(`* ${TEST_EXPORT_NOTICE}.`);
    expect(sps).toMatch(/^FILE LABEL 测试数据：.+\.$/m);

    const stata = await exported('stataSyntax');
    expect(stata.fileName).toMatch(/^测试数据_.*\.zip$/);
    const b = await JSZip.loadAsync(stata.file);
    expect(await b.file('data.csv')!.async('string')).toMatch(/^subject_code,/);
    const doFile = await b.file('labels.do')!.async('string');
    expect(doFile).toContain(`* ${TEST_EXPORT_NOTICE}`);
    expect(doFile).toMatch(/^label data "测试数据：.+"$/m);
    const r = await b.file('labels.R')!.async('string');
    expect(r).toContain(`# ${TEST_EXPORT_NOTICE}`);
    expect(r).toMatch(/^attr\(data, "label"\) <- "测试数据：.+"$/m);
  });

  it('ODM: the StudyDescription and a comment after the XML declaration say 测试数据; the file still reads as ODM', async () => {
    await setMode('test');
    const done = await exported('odm');
    expect(done.fileName).toMatch(/^测试数据_.*\.xml$/);
    const xml = done.file.toString('utf8');
    const [declaration, comment] = xml.split('\n');
    expect(declaration).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>$/);
    expect(comment).toBe(`<!-- ${TEST_EXPORT_NOTICE} -->`);
    expect(xml).toMatch(/<StudyDescription>测试数据：[^<]+<\/StudyDescription>/);
    expect(new Set(readOdmClinicalData(xml).map((v) => v.subjectKey))).toEqual(new Set([code.R, code.T]));
  });

  it('REDCap zip: records.csv and the dictionary as REDCap reads them (no extra row); the README says 测试数据 first', async () => {
    await setMode('test');
    const done = await exported('redcap');
    expect(done.fileName).toMatch(/^测试数据_.*\.zip$/);
    const zip = await JSZip.loadAsync(done.file);
    const records = (await zip.file('records.csv')!.async('string')).replace(/^\uFEFF/, '');
    expect(records).toMatch(/^record_id,/);
    expect(new Set(readCsv(records).map((r) => r.record_id))).toEqual(new Set([code.R, code.T]));
    expect((await zip.file('data_dictionary.csv')!.async('string')).replace(/^\uFEFF/, '')).toMatch(/^"?Variable/);
    const readme = (await zip.file('README.txt')!.async('string')).replace(/^\uFEFF/, '');
    expect(readme.split('\r\n')[0]).toBe(TEST_EXPORT_NOTICE);
  });
});
