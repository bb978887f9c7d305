import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crfDataRecords } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { runTool, skipWithout } from '../../test/external-tool.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * The statistics files of a real export read by the programs statisticians open them with: the .sav by PSPP
 * (GET FILE, SAVE TRANSLATE to CSV) and by R haven, the .dta by R haven. Every cell they read is compared with
 * the CSV wide export of the same data (the export plan's own reading of the database), and the texts that
 * used to break a row (multi-line, quotes, Chinese, the 其他（请注明） text) with the stored values themselves.
 */

const NOTE = '腰痛三年，"卧床"休息\n2024年加重，伴间歇性跛行\r\n已于外院保守治疗';
const SPECIFY = '痛风, "高尿酸"\n待复查';
const COMPLICATION = '硬膜撕裂 2 mm\n术中修补';

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number> = {};
const ids: Record<'A' | 'B', number> = { A: 0, B: 0 };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stat-readers-'));

/** A CSV as rows of text, its first row the names. */
const table = (text: string) => {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return { header: parsed.data[0]!, rows: parsed.data.slice(1) };
};

/** A small export's file, answered by the route itself (`?wait=true`). */
async function exported(format: string, labels = false): Promise<Buffer> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v3/business/search/export?wait=true',
    headers: { authorization: `Bearer ${admin}` },
    payload: { studyId, format, labels },
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res.rawPayload;
}

/** haven's reading: each column's values (dates ISO, date-times UTC wall clock, labelled values bare), and meta. */
const R_READ = `
library(haven)
args <- commandArgs(trailingOnly = TRUE)
d <- if (grepl("\\\\.sav$", args[1])) read_sav(args[1]) else read_dta(args[1])
plain <- function(x) {
  if (inherits(x, "POSIXct")) return(format(x, "%Y-%m-%d %H:%M:%S", tz = "UTC"))
  if (inherits(x, "Date")) return(format(x, "%Y-%m-%d"))
  as.vector(zap_labels(x))
}
out <- as.data.frame(lapply(d, plain), check.names = FALSE, stringsAsFactors = FALSE)
write.csv(out, args[2], row.names = FALSE, na = "", fileEncoding = "UTF-8")
meta <- data.frame(
  name = names(d),
  label = vapply(d, function(x) { l <- attr(x, "label"); if (is.null(l)) "" else l }, ""),
  labels = vapply(d, function(x) {
    l <- attr(x, "labels")
    if (is.null(l)) "" else paste0(unname(l), "=", names(l), collapse = "|")
  }, ""),
  class = vapply(d, function(x) paste(class(x), collapse = "/"), ""),
  check.names = FALSE
)
write.csv(meta, args[3], row.names = FALSE, fileEncoding = "UTF-8")
`;

function readWithR(file: string) {
  const script = path.join(dir, 'read.R');
  fs.writeFileSync(script, R_READ);
  const [data, meta] = [`${file}.data.csv`, `${file}.meta.csv`];
  runTool('Rscript', [script, file, data, meta], { env: { LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' } });
  const info = new Map(
    table(fs.readFileSync(meta, 'utf8')).rows.map(([name, label, labels, cls]) => [
      name!,
      {
        label: label!,
        class: cls!,
        labels: new Map(
          labels ? labels.split('|').map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string]) : [],
        ),
      },
    ]),
  );
  return { ...table(fs.readFileSync(data, 'utf8')), info };
}

function readWithPspp(file: string) {
  const csv = `${file}.pspp.csv`;
  const syntax = path.join(dir, 'read.sps');
  fs.writeFileSync(syntax, `GET FILE='${file}'.\nSAVE TRANSLATE /OUTFILE='${csv}' /TYPE=CSV /FIELDNAMES /REPLACE.\n`);
  runTool('pspp', ['-O', 'format=txt', '-o', path.join(dir, 'pspp.txt'), syntax]);
  return table(fs.readFileSync(csv, 'utf8'));
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;
const US_DATE = /^(\d{2})\/(\d{2})\/(\d{4})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/**
 * Whether a reader's cell holds the exported value: the same text; the same number; the same date or
 * date-time however the reader writes it (R: ISO with seconds; PSPP: MM/DD/YYYY); missing as empty.
 */
function same(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  if (expected === '') return actual.trim() === '';
  if (/^-?[\d.]+(e[-+]?\d+)?$/i.test(expected) && actual.trim() !== '' && Number.isFinite(Number(actual))) {
    return Math.abs(Number(expected) - Number(actual)) <= 1e-9 * Math.max(1, Math.abs(Number(expected)));
  }
  const us = US_DATE.exec(actual);
  const iso = us ? `${us[3]}-${us[1]}-${us[2]}${us[4] ? ` ${us[4]}:${us[5]}:${us[6]}` : ''}` : actual;
  if (ISO_DATE.test(expected)) return iso === expected;
  const dt = ISO_DATE_TIME.exec(expected);
  return dt !== null && iso === `${dt[1]}-${dt[2]}-${dt[3]} ${dt[4]}:${dt[5]}:${dt[6] ?? '00'}`;
}

/** Compares every cell of a reader's table with the CSV wide export, by column name, row by row. */
function expectCells(
  reader: string,
  actual: { header: string[]; rows: string[][] },
  expected: { header: string[]; rows: string[][] },
  /** A cell the reader holds as a label's number (Stata's text-coded choices): the label it stands for. */
  label?: (name: string, value: string) => string | undefined,
  labelled?: { rows: string[][] },
) {
  expect(actual.header, reader).toEqual(expected.header);
  expect(actual.rows.length, `${reader}: one row per exported row, none split`).toBe(expected.rows.length);
  const mismatches: string[] = [];
  expected.rows.forEach((row, r) => {
    expected.header.forEach((name, c) => {
      const [want, got] = [row[c] ?? '', actual.rows[r]![c] ?? ''];
      if (same(want, got)) return;
      const text = label?.(name, got);
      if (text !== undefined && text === labelled?.rows[r]![c]) return;
      mismatches.push(`${name} row ${r + 1}: ${JSON.stringify(want)} read as ${JSON.stringify(got)}`);
    });
  });
  expect(mismatches, reader).toEqual([]);
}

describe.skipIf(skipWithout('pspp', 'R'))('statistics files read by PSPP and R haven', () => {
  let wide: { header: string[]; rows: string[][] };
  let wideLabels: { header: string[]; rows: string[][] };
  let sav: string;
  let dta: string;

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId, crfIds } = await openDemoStudy(t));
    const enrol = async (subjectName: string, gender: number, birth: string) => {
      const res = await t.call(admin, 'POST', '/api/business/subject', {
        studyId,
        subjectName,
        gender,
        birth,
        diseaseCode: 'LSS',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.subjectRecordId as number;
    };
    const save = async (subjectRecordId: number, crf: string, values: object, missing?: Record<string, string>) => {
      const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
        subjectRecordId,
        crfId: crfIds[crf],
        version: 0,
        values,
        missing,
        submit: false,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    ids.A = await enrol('张三', 1, '1958-03-02');
    ids.B = await enrol('李四', 0, '1990-07-15');
    await save(ids.A, '人口学资料', {
      sex: '1',
      birth: '1958-03-02',
      ethnic: 'han',
      smoke: '2',
      smoke_years: 20,
      packs: 1.5,
      comorbid: ['dm', 'other'],
      comorbid_addition: SPECIFY,
      dm_years: 5,
      height: 170.5,
      history_note: NOTE,
    });
    await save(ids.B, '人口学资料', { sex: '2', birth: '1990-07-15', ethnic: 'hui', comorbid: ['op'] });
    await save(ids.A, '生命体征', { vs_at: '2026-01-10 08:30:00', sbp: 150, dbp: 90, temp: 36.8 });
    // 舒张压 marked 未查 (ND) instead of a value: its `dbp_missing` column holds the code (issue 37).
    await save(ids.B, '生命体征', { vs_at: '2026-01-11 09:05:00', sbp: 120 }, { dbp: 'ND' });
    await save(ids.A, '实验室检查', { lab_date: '2026-01-10', hb: 140.5 });
    await save(ids.A, '手术记录', {
      op_at: '2026-01-12 09:15:00',
      approach: 'mis',
      op_levels: ['L4/5'],
      implants: [
        { implant_name: '椎弓根螺钉', implant_spec: '6.5×45', implant_qty: 4, implant_price: 1200 },
        { implant_name: '融合器', implant_qty: 1, implant_price: 8000 },
      ],
      op_complication: ['dural'],
      complication_note: COMPLICATION,
    });
    await save(ids.A, '术后随访', { fu_date: '2026-04-01', odi: 30, reoperation: '1', reop_date: '2026-03' });
    await save(ids.A, '术后随访', { fu_date: '2026-07-01', odi: 50, reoperation: '0' });
    wide = table((await exported('csvWide')).toString('utf8'));
    wideLabels = table((await exported('csvWide', true)).toString('utf8'));
    sav = path.join(dir, 'export.sav');
    dta = path.join(dir, 'export.dta');
    fs.writeFileSync(sav, await exported('spss'));
    fs.writeFileSync(dta, await exported('stata'));
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The stored values of a patient's form, read from the database. */
  async function stored(subjectRecordId: number, crf: string) {
    const [row] = await t.db
      .select({ values: crfDataRecords.values })
      .from(crfDataRecords)
      .where(
        and(
          eq(crfDataRecords.subjectRecordId, subjectRecordId),
          eq(crfDataRecords.crfId, crfIds[crf]!),
          isNull(crfDataRecords.deletedAt),
        ),
      );
    return row!.values as Record<string, unknown>;
  }

  /** Patient A's row of a stage in a reader's table (by 编号 and stage), as a reader of its cells by name. */
  const rowOfA = (data: { header: string[]; rows: string[][] }, stage: string) => {
    const code = wide.rows.find((r) => r.includes(NOTE))![wide.header.indexOf('subject_code')];
    const at = (name: string) => data.header.indexOf(name);
    const row = data.rows.find((r) => r[at('subject_code')] === code && r[at('stage')] === stage)!;
    return (name: string) => row[at(name)];
  };

  it('the export holds what the test is about: multi-line text, the 其他 text, dates, date-times, a list group, a missing-data code', () => {
    for (const name of [
      'history_note',
      'lab_date',
      'vs_at',
      'op_at',
      'implants',
      'complication_note',
      'reop_date',
      'dbp_missing',
    ]) {
      expect(wide.header).toContain(name);
    }
    expect(wide.rows.some((row) => row.includes(NOTE))).toBe(true);
    expect(wide.rows.filter((row) => row[wide.header.indexOf('dbp_missing')] === 'ND')).toHaveLength(1);
  });

  it('PSPP reads every case and every value of the .sav', () => {
    const pspp = readWithPspp(sav);
    // PSPP's CSV writer ends each line of a text with LF, CR LF included (its own output, not the file it read).
    const lf = (text: string) => text.replace(/\r\n/g, '\n');
    expectCells('PSPP .sav', pspp, { header: wide.header, rows: wide.rows.map((row) => row.map(lf)) });
    expect(rowOfA(pspp, '基线')('history_note')).toBe(lf(NOTE));
    expect(rowOfA(pspp, '手术')('complication_note')).toBe(COMPLICATION);
  });

  it('R haven reads every value of the .sav with its type, variable labels and value labels', async () => {
    const r = readWithR(sav);
    expectCells('haven .sav', r, wide);
    const a = rowOfA(r, '基线');
    const demographics = await stored(ids.A, '人口学资料');
    expect(a('history_note')).toBe(demographics.history_note);
    if (r.header.includes('comorbid_addition')) expect(a('comorbid_addition')).toBe(demographics.comorbid_addition);
    const surgery = rowOfA(r, '手术');
    expect(surgery('complication_note')).toBe((await stored(ids.A, '手术记录')).complication_note);
    expect(surgery('op_at')).toBe('2026-01-12 09:15:00');
    expect(surgery('implants')).toContain('椎弓根螺钉');
    expect(r.info.get('lab_date')!.class).toBe('Date');
    expect(r.info.get('vs_at')!.class).toContain('POSIXct');
    expect(r.info.get('op_at')!.class).toContain('POSIXct');
    expect(r.info.get('sbp')!.class).toBe('numeric');
    expect(r.info.get('history_note')).toMatchObject({ class: 'character', label: '其他病史' });
    expect(r.info.get('reop_date')!.class).toBe('character');
    expect(Object.fromEntries(r.info.get('gender')!.labels)).toEqual({ '0': '女', '1': '男' });
    expect(r.info.get('ethnic')!.labels.get('han')).toBe('汉族');
    expect(r.info.get('smoke')!.labels.get('2')).toBe('目前吸烟');
    expect(r.info.get('sbp')!.label).toBe('收缩压（mmHg）');
  });

  it('R haven reads every value of the .dta: strL texts whole, dates %td, date-times %tc, choices labelled', async () => {
    const r = readWithR(dta);
    // Stata numbers a choice coded as text: the reader's number stands for the label of the exported code.
    const label = (name: string, value: string) => r.info.get(name)?.labels.get(value);
    expectCells('haven .dta', r, wide, label, wideLabels);
    const a = rowOfA(r, '基线');
    const demographics = await stored(ids.A, '人口学资料');
    expect(a('history_note')).toBe(demographics.history_note);
    if (r.header.includes('comorbid_addition')) expect(a('comorbid_addition')).toBe(demographics.comorbid_addition);
    expect(r.info.get('lab_date')!.class).toBe('Date');
    expect(r.info.get('vs_at')!.class).toContain('POSIXct');
    expect(r.info.get('ethnic')!.class).toContain('haven_labelled');
    expect(label('ethnic', a('ethnic')!)).toBe('汉族');
    const surgery = rowOfA(r, '手术');
    expect(label('approach', surgery('approach')!)).toBe('微创TLIF');
    expect(surgery('complication_note')).toBe(COMPLICATION);
    expect(r.info.get('history_note')).toMatchObject({ class: 'character', label: '其他病史' });
  });
});
