import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportVariables, type CrfDefinition, type CrfNode } from '@ecrf/core';
import { readOdmClinicalData } from '@ecrf/core/interop';
import { crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import { runTool, skipWithout, VENDOR_DIR } from '../../test/external-tool.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import {
  enrol,
  migrate,
  openAmendmentStudy,
  save,
  uploadDraft,
  V1,
  type AmendmentStudy,
} from '../amendment/amendment-test-kit.js';
import { readCsv } from '../redcap/redcap-csv.js';
import { asRemovedItem, removedItemsOf } from './export-removed-items.js';

/**
 * Issue 36: a removed item's value stays in the record (inert) and so in the data export. 随访评估 v1 → v2 removes 性别
 * (a choice: 1=男, 2=女) and 备注; every record moves to v2. Each format then has, after the form's current columns,
 * `sex` 性别（已删除） and `note` 备注（已删除）, read with v1's definition; an export whose records hold no such value is
 * as before.
 *   A: 性别 2, 备注 旧备注 (submitted)   B: 性别 1 (submitted)   D: neither (saved)
 *   C: a test patient of the production study with 备注 (never exported, so never a reason for a column)
 */

const NEXT: CrfDefinition = { ...V1, children: V1.children.filter((n) => n.name !== 'sex' && n.name !== 'note') };
const CURRENT = exportVariables(NEXT).map((v) => v.name);

let t: TestApp;
let s: AmendmentStudy;
const ids = { A: 0, B: 0, C: 0, D: 0 };
const code = { A: '', B: '', C: '', D: '' };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'removed-items-'));

beforeAll(async () => {
  t = await createTestApp();
  s = await openAmendmentStudy(t, (await t.login()).token);
  const cases: Array<[keyof typeof ids, Record<string, unknown>, boolean, boolean]> = [
    ['A', { sex: '2', weight: '60', note: '旧备注' }, true, false],
    ['B', { sex: '1', weight: '70' }, true, false],
    ['C', { weight: '50', note: '测试备注' }, false, true],
    ['D', { weight: '65' }, false, false],
  ];
  for (const [key, values, submit, test] of cases) {
    const p = await enrol(t, s, { test });
    const saved = await save(t, s, p.subjectRecordId, values, { submit });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    ids[key] = p.subjectRecordId;
    const [row] = await t.db
      .select({ code: subjects.identificationCode })
      .from(subjects)
      .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
      .where(eq(subjectRecords.id, p.subjectRecordId));
    code[key] = row!.code;
  }
  expect((await uploadDraft(t, s.admin, s.studyId, NEXT)).status).toBe(200);
  const published = await t.call(s.admin, 'POST', '/api/system/crf/draft/publish', {
    studyId: s.studyId,
    crfId: s.crfId,
    name: '删除性别与备注',
  });
  expect(published.status, JSON.stringify(published.body)).toBe(200);
  const job = await migrate(t, s, published.body.data.amendmentId as number, { kind: 'all' });
  expect(job.state, JSON.stringify(job)).toBe('done');
  const [a] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.subjectRecordId, ids.A));
  // The moved record keeps the removed items' values (inert): what the export reads.
  expect(a).toMatchObject({ crfVersion: 2, values: expect.objectContaining({ sex: '2', note: '旧备注' }) });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The file of a small export answered by the route itself (`?wait=true`); v2 with a list of patients. */
async function exported(format: string, body: object = {}, api: 'v2' | 'v3' = 'v3'): Promise<Buffer> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/${api}/business/search/export?wait=true`,
    headers: { authorization: `Bearer ${s.admin}` },
    payload: { studyId: s.studyId, format, ...body },
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res.rawPayload;
}

const csvOf = (file: Buffer) =>
  Papa.parse<Record<string, string>>(file.toString('utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  });
/** The wide CSV's form columns: those after the row keys. */
const formColumns = (fields: readonly string[]) => fields.slice(fields.indexOf('instance') + 1);

describe('removed items in the data export', () => {
  it('CSV wide: sex and note after the form’s current columns, with v1’s codes or labels; the test patient never', async () => {
    const codes = csvOf(await exported('csvWide'));
    expect(formColumns(codes.meta.fields!)).toEqual([...CURRENT, 'sex', 'note']);
    const byCode = new Map(codes.data.map((r) => [r.subject_code, r]));
    expect(byCode.get(code.A)).toMatchObject({ weight: '60', sex: '2', note: '旧备注' });
    expect(byCode.get(code.B)).toMatchObject({ sex: '1', note: '' });
    expect(byCode.get(code.D)).toMatchObject({ weight: '65', sex: '', note: '' });
    expect(byCode.has(code.C)).toBe(false);
    const labels = csvOf(await exported('csvWide', { labels: true }));
    expect(labels.data.find((r) => r.subject_code === code.A)).toMatchObject({ sex: '女', note: '旧备注' });
  });

  it('CSV long: the values’ rows with the items’ titles marked （已删除）', async () => {
    const rows = csvOf(await exported('csvLong', { labels: true })).data.filter((r) => r.subject_code === code.A);
    expect(
      rows.filter((r) => r.item === 'sex' || r.item === 'note').map((r) => [r.item, r.item_title, r.value]),
    ).toEqual([
      ['sex', '性别（已删除）', '女'],
      ['note', '备注（已删除）', '旧备注'],
    ]);
  });

  it('Excel: the columns last on the form’s sheet, titled …（已删除）, and in the data dictionary with v1’s choices', async () => {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await exported('excel')) as unknown as ArrayBuffer);
    const sheet = wb.getWorksheet('随访评估')!;
    const cells = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
    expect(cells(1).slice(-2)).toEqual(['性别（已删除）', '备注（已删除）']);
    expect(cells(2).slice(-2)).toEqual(['sex', 'note']);
    const rowOf = new Map<unknown, unknown[]>();
    sheet.eachRow((row, n) => n > 2 && rowOf.set(row.getCell(1).value, (row.values as unknown[]).slice(1)));
    expect(rowOf.get(code.A)!.slice(-2)).toEqual(['2', '旧备注']);
    const dictionary: unknown[][] = [];
    wb.getWorksheet('数据字典')!.eachRow((row) => dictionary.push((row.values as unknown[]).slice(1)));
    const removed = dictionary.filter((r) => r[1] === 'sex' || r[1] === 'note');
    expect(removed.map((r) => [...r.slice(0, 4), r[5] ?? ''])).toEqual([
      ['随访评估', 'sex', '性别（已删除）', 'choice', '1=男；2=女'],
      ['随访评估', 'note', '备注（已删除）', 'text', ''],
    ]);
  });

  it('ODM: an ItemDef for each removed item, its ItemData, and the file validates against the ODM 1.3.2 schema', async () => {
    const xml = (await exported('odm')).toString('utf8');
    expect(xml).toMatch(/<ItemDef OID="(I\.[^"]+\.note)"[^>]*><Question><TranslatedText[^>]*>备注（已删除）</);
    expect(xml).toMatch(/<ItemDef OID="(I\.[^"]+\.sex)"[^>]*><Question><TranslatedText[^>]*>性别（已删除）</);
    const defined = new Set([...xml.matchAll(/<ItemDef OID="([^"]+)"/g)].map((m) => m[1]));
    const values = readOdmClinicalData(xml);
    for (const v of values) expect(defined.has(v.itemOid), v.itemOid).toBe(true);
    const of = (item: string) =>
      values.filter((v) => v.subjectKey === code.A && v.itemOid.endsWith(`.${item}`)).map((v) => v.value);
    expect([of('sex'), of('note')]).toEqual([['2'], ['旧备注']]);
    expect(values.some((v) => v.subjectKey === code.C)).toBe(false);
    if (skipWithout('xmllint')) return;
    const file = path.join(dir, 'removed.xml');
    fs.writeFileSync(file, xml);
    const schema = path.join(VENDOR_DIR, 'odm-1.3.2', 'ODM1-3-2.xsd');
    expect(runTool('xmllint', ['--noout', '--schema', schema, file]).stderr).toContain('validates');
  });

  it('REDCap: the data dictionary has a row for each removed field, records.csv their values', async () => {
    const zip = await JSZip.loadAsync(await exported('redcap'));
    const text = async (name: string) => (await zip.file(name)!.async('string')).replace(/^\uFEFF/, '');
    const dictionary = readCsv(await text('data_dictionary.csv'));
    const field = (name: string) => dictionary.find((r) => Object.values(r)[0] === name);
    expect(Object.values(field('sex')!)).toEqual(expect.arrayContaining(['radio', '性别（已删除）']));
    expect(Object.values(field('note')!)).toEqual(expect.arrayContaining(['备注（已删除）']));
    const records = readCsv(await text('records.csv'));
    expect(records.find((r) => r.record_id === code.A)).toMatchObject({ sex: '2', note: '旧备注' });
    for (const column of Object.keys(records[0]!)) {
      if (column === 'record_id' || column.startsWith('redcap_') || column.endsWith('_complete')) continue;
      expect(
        dictionary.some((r) => Object.values(r)[0] === column.split('___')[0]),
        column,
      ).toBe(true);
    }
  });

  it.skipIf(skipWithout('pspp'))(
    'SPSS: PSPP reads the .sav with the removed items labelled and their values',
    async () => {
      const sav = path.join(dir, 'removed.sav');
      fs.writeFileSync(sav, await exported('spss'));
      const info = runTool('pspp', ['-O', 'format=txt', '-o', '-'], {
        input: `GET FILE='${sav}'.\nDISPLAY LABELS.\nLIST subject_code sex note.\n`,
      }).stdout;
      expect(info).toContain('性别（已删除）');
      expect(info).toContain('备注（已删除）');
      expect(info).toContain('旧备注');
    },
  );

  it.skipIf(skipWithout('R'))(
    'Stata: R haven reads the .dta with the removed items labelled and their values',
    async () => {
      const dta = path.join(dir, 'removed.dta');
      fs.writeFileSync(dta, await exported('stata'));
      const out = runTool(
        'Rscript',
        [
          '-e',
          `library(haven); d <- read_dta(${JSON.stringify(dta)}); cat(attr(d$note, "label"), attr(d$sex, "label"), "\\n"); ` +
            `cat(d$note[d$subject_code == ${JSON.stringify(code.A)}], "\\n")`,
        ],
        { env: { LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' } },
      ).stdout.split('\n');
      expect(out[0]?.trim()).toBe('备注（已删除） 性别（已删除）');
      expect(out[1]?.trim()).toBe('旧备注');
    },
  );
});

describe('an export whose records hold no removed value is as before', () => {
  it('a list of patients without such values (v2): only the current columns, in every format', async () => {
    const subjectRecordIds = [ids.D];
    const wide = csvOf(await exported('csvWide', { subjectRecordIds }, 'v2'));
    expect(formColumns(wide.meta.fields!)).toEqual(CURRENT);
    const xml = (await exported('odm', { subjectRecordIds }, 'v2')).toString('utf8');
    expect(xml).not.toContain('（已删除）');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await exported('excel', { subjectRecordIds }, 'v2')) as unknown as ArrayBuffer);
    expect((wb.getWorksheet('随访评估')!.getRow(2).values as unknown[]).slice(-1)).toEqual([CURRENT.at(-1)]);
  });

  it('a value only in a record of another state, or of a test patient, is no reason for a column', async () => {
    // Only saved records: D's (A and B are submitted).
    const saved = csvOf(await exported('csvWide', { states: ['saved'] }));
    expect(formColumns(saved.meta.fields!)).toEqual(CURRENT);
    // B holds 性别; the test patient C's 备注 is never exported.
    const listed = csvOf(await exported('csvWide', { subjectRecordIds: [ids.B, ids.C] }, 'v2'));
    expect(formColumns(listed.meta.fields!)).toEqual([...CURRENT, 'sex']);
  });
});

describe('removedItemsOf', () => {
  const item = (name: string, title: string, option: CrfNode['option'] = {}): CrfNode => ({
    name,
    title,
    type: 'input',
    option,
    children: [],
  });
  const form = (...children: CrfNode[]): CrfDefinition => ({ title: 'F', option: {}, children });

  it('names the items older versions stored that the current one does not, each once as its newest version has it', () => {
    const current = form(item('a', '甲'));
    const v2 = form(item('a', '甲'), item('b', '乙（新）', { showIf: 'a == "1"', required: '1' }));
    const v1 = form(item('c', '丙'), item('b', '乙'), item('a_addition', '不是项目'));
    const removed = removedItemsOf(current, [v2, v1]);
    expect(removed.map((n) => [n.name, n.title])).toEqual([
      ['b', '乙（新）'],
      ['c', '丙'],
    ]);
    // The marked label, without the page logic that may name items the current version lacks.
    expect(asRemovedItem(removed[0]!)).toEqual({
      name: 'b',
      title: '乙（新）（已删除）',
      type: 'input',
      option: {},
      children: [],
    });
  });
});
