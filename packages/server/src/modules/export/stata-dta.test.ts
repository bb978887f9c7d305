import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dtaNames, writeDta } from './stata-dta.js';
import type { DataCell, DataColumn, Dataset } from './statistics-table.js';

/**
 * The .dta writer read back by a small reader of format 118 written here from Stata's description (the real
 * reader, R haven, reads the study's export in statistics-readers.interop.test.ts).
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dta-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const column = (c: Partial<DataColumn> & Pick<DataColumn, 'name' | 'type'>): DataColumn => ({
  label: '',
  width: 1,
  decimals: 0,
  digits: 1,
  multiline: false,
  labels: [],
  ...c,
});

async function write(columns: DataColumn[], rows: DataCell[][]) {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.dta`);
  const data: Dataset = {
    label: '腰椎管狭窄症登记研究',
    columns,
    rowCount: rows.length,
    rows: async function* () {
      yield* rows;
    },
  };
  await writeDta(file, data, { now: new Date('2026-03-05T01:02:03Z'), timeZone: 'Asia/Shanghai' });
  expect(fs.existsSync(`${file}.strls`)).toBe(false);
  return fs.readFileSync(file);
}

const SECTIONS = [
  'stata_dta',
  'map',
  'variable_types',
  'varnames',
  'sortlist',
  'formats',
  'value_label_names',
  'variable_labels',
  'characteristics',
  'data',
  'strls',
  'value_labels',
];
const MISSING = Buffer.from([0, 0, 0, 0, 0, 0, 0xe0, 0x7f]);
const cString = (b: Buffer) => b.subarray(0, b.indexOf(0) < 0 ? b.length : b.indexOf(0)).toString('utf8');

/** Reads a format-118 file: the header, the map (checked against the tags), the descriptors, data, strLs, labels. */
function readDta(buf: Buffer) {
  const text = (at: number, s: string) => buf.subarray(at, at + s.length).toString('latin1') === s;
  expect(text(0, '<stata_dta><header><release>118</release><byteorder>LSF</byteorder><K>')).toBe(true);
  let at = '<stata_dta><header><release>118</release><byteorder>LSF</byteorder><K>'.length;
  const k = buf.readUInt16LE(at);
  at += 2 + '</K><N>'.length;
  const n = Number(buf.readBigUInt64LE(at));
  at += 8 + '</N><label>'.length;
  const labelLength = buf.readUInt16LE(at);
  const label = buf.subarray(at + 2, at + 2 + labelLength).toString('utf8');
  at += 2 + labelLength + '</label><timestamp>'.length;
  const timestamp = buf.subarray(at + 1, at + 1 + buf[at]!).toString('latin1');
  const mapAt = buf.indexOf('<map>') + 5;
  const map = Array.from({ length: 14 }, (_, i) => Number(buf.readBigUInt64LE(mapAt + 8 * i)));
  SECTIONS.forEach((name, i) => expect(text(map[i]!, `<${name}>`), name).toBe(true));
  expect(text(map[12]!, '</stata_dta>')).toBe(true);
  expect(map[13]).toBe(buf.length);
  const section = (i: number) => buf.subarray(map[i]! + SECTIONS[i]!.length + 2, map[i + 1]! - SECTIONS[i]!.length - 3);
  const types = Array.from({ length: k }, (_, i) => section(2).readUInt16LE(2 * i));
  const fixed = (i: number, size: number) =>
    Array.from({ length: k }, (_, j) => cString(section(i).subarray(size * j, size * (j + 1))));
  const names = fixed(3, 129);
  expect(section(4)).toEqual(Buffer.alloc(2 * (k + 1)));
  const formats = fixed(5, 57);
  const labelNames = fixed(6, 129);
  const labels = fixed(7, 321);
  const strls = new Map<string, string>();
  const gso = section(10);
  for (let g = 0; g < gso.length;) {
    expect(gso.subarray(g, g + 3).toString('latin1')).toBe('GSO');
    const [v, o, t, len] = [
      gso.readUInt32LE(g + 3),
      Number(gso.readBigUInt64LE(g + 7)),
      gso[g + 15],
      gso.readUInt32LE(g + 16),
    ];
    expect(t).toBe(130);
    expect(gso[g + 20 + len - 1]).toBe(0);
    strls.set(`${v},${o}`, gso.subarray(g + 20, g + 20 + len - 1).toString('utf8'));
    g += 20 + len;
  }
  const size = (type: number) => (type === 65_526 || type === 32_768 ? 8 : type);
  const record = types.reduce((sum, t) => sum + size(t), 0);
  const data = section(9);
  expect(data.length).toBe(record * n);
  const rows = Array.from({ length: n }, (_, o) => {
    let p = o * record;
    return types.map((type) => {
      const cell = data.subarray(p, (p += size(type)));
      if (type === 65_526) return cell.equals(MISSING) ? null : cell.readDoubleLE(0);
      if (type === 32_768) {
        const [v, obs] = [cell.readUInt16LE(0), cell.readUIntLE(2, 6)];
        return v === 0 ? '' : strls.get(`${v},${obs}`)!;
      }
      return cString(cell);
    });
  });
  const valueLabels = new Map<string, Array<[number, string]>>();
  const tables = section(11);
  for (let t = 0; t < tables.length;) {
    expect(tables.subarray(t, t + 5).toString('latin1')).toBe('<lbl>');
    const length = tables.readInt32LE(t + 5);
    const name = cString(tables.subarray(t + 9, t + 9 + 129));
    const table = tables.subarray(t + 9 + 132, t + 9 + 132 + length);
    const count = table.readInt32LE(0);
    const texts = table.subarray(8 + 8 * count);
    const entries: Array<[number, string]> = Array.from({ length: count }, (_, i) => [
      table.readInt32LE(8 + 4 * count + 4 * i),
      cString(texts.subarray(table.readInt32LE(8 + 4 * i))),
    ]);
    valueLabels.set(name, entries);
    t += 9 + 132 + length + '</lbl>'.length;
  }
  return { k, n, label, timestamp, types, names, formats, labelNames, labels, rows, valueLabels };
}

describe('Stata .dta (format 118) writer', () => {
  it('writes the header, the map, the descriptors and typed data: doubles, %td, %tc, str#', async () => {
    const dta = readDta(
      await write(
        [
          column({ name: 'subject_code', type: 'text', label: '编号', width: 4 }),
          column({
            name: 'gender',
            type: 'number',
            label: '性别',
            labels: [
              [1, '男'],
              [0, '女'],
            ],
          }),
          column({ name: 'hb', type: 'number', label: '血红蛋白（g/L）' }),
          column({ name: 'lab_date', type: 'date', label: '采血日期' }),
          column({ name: 'vs_at', type: 'datetime', label: `测量时间${'很长'.repeat(50)}` }),
        ],
        [
          ['P001', 1, 140.25, 20463, Date.UTC(2026, 0, 10, 8, 30)],
          ['P002', null, null, null, null],
        ],
      ),
    );
    expect([dta.k, dta.n, dta.label, dta.timestamp]).toEqual([5, 2, '腰椎管狭窄症登记研究', '05 Mar 2026 09:02']);
    expect(dta.types).toEqual([4, 65_526, 65_526, 65_526, 65_526]);
    expect(dta.names).toEqual(['subject_code', 'gender', 'hb', 'lab_date', 'vs_at']);
    expect(dta.formats).toEqual(['%-4s', '%10.0g', '%10.0g', '%td', '%tc']);
    expect(dta.labelNames).toEqual(['', 'gender', '', '', '']);
    expect(dta.labels.slice(0, 4)).toEqual(['编号', '性别', '血红蛋白（g/L）', '采血日期']);
    expect([...dta.labels[4]!].length).toBe(80);
    expect(dta.valueLabels).toEqual(
      new Map([
        [
          'gender',
          [
            [0, '女'],
            [1, '男'],
          ],
        ],
      ]),
    );
    // Days since 1960-01-01; milliseconds since 1960-01-01 00:00.
    expect(dta.rows).toEqual([
      ['P001', 1, 140.25, 20463 + 3653, (20463 + 3653) * 86_400_000 + 8.5 * 3_600_000],
      ['P002', null, null, null, null],
    ]);
  });

  it('writes multi-line and long text as strL, and numbers a text-coded choice 1, 2, … with its labels', async () => {
    const note = '第一行\n第二行，"引号"';
    const long = '字'.repeat(700);
    const dta = readDta(
      await write(
        [
          column({
            name: 'ethnic',
            type: 'text',
            width: 5,
            labels: [
              ['han', '汉族'],
              ['hui', '回族'],
            ],
          }),
          column({ name: 'history_note', type: 'text', width: Buffer.byteLength(note), multiline: true }),
          column({ name: 'report', type: 'text', width: Buffer.byteLength(long) }),
          column({ name: 'short', type: 'text', width: 6 }),
        ],
        [
          ['hui', note, long, '短文'],
          ['other', null, 'x', null],
          [null, '', null, 'abc'],
        ],
      ),
    );
    expect(dta.types).toEqual([65_526, 32_768, 32_768, 6]);
    expect(dta.rows).toEqual([
      [2, note, long, '短文'],
      [3, '', 'x', ''],
      [null, '', '', 'abc'],
    ]);
    // A code outside the choices gets the next number and itself as label.
    expect(dta.valueLabels.get('ethnic')).toEqual([
      [1, '汉族'],
      [2, '回族'],
      [3, 'other'],
    ]);
    expect(dta.labelNames).toEqual(['ethnic', '', '', '']);
  });

  it('makes names Stata accepts: no reserved word, at most 32 characters, unique', () => {
    expect(dtaNames(['in', 'str5', 'sbp', 'sbp', '1st', '性别', `x${'y'.repeat(40)}`])).toEqual([
      'in_',
      'str5_',
      'sbp',
      'sbp_2',
      'v1st',
      '性别',
      `x${'y'.repeat(31)}`,
    ]);
  });
});
