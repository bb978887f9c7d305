import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { savNames, writeSav } from './spss-sav.js';
import type { DataCell, DataColumn, Dataset } from './statistics-table.js';

/**
 * The .sav writer read back by a small reader of the system file format written here from its description
 * (the real readers, PSPP and R haven, read the study's export in statistics-readers.interop.test.ts).
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sav-'));
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
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.sav`);
  const data: Dataset = {
    label: '腰椎管狭窄症登记研究',
    columns,
    rowCount: rows.length,
    rows: async function* () {
      yield* rows;
    },
  };
  await writeSav(file, data, { now: new Date('2026-03-05T01:02:03Z'), timeZone: 'Asia/Shanghai' });
  return fs.readFileSync(file);
}

interface VariableRecord {
  width: number;
  print: number;
  short: string;
  label?: string;
}

/** Reads a bytecode-compressed system file: its header, records, extension records and cases (units decoded). */
function readSav(buf: Buffer) {
  let at = 0;
  const i32 = () => ((at += 4), buf.readInt32LE(at - 4));
  const take = (n: number) => ((at += n), buf.subarray(at - n, at));
  const magic = take(4).toString('latin1');
  const product = take(60).toString('latin1').trimEnd();
  const [layout, caseSize, compression, weight, cases] = [i32(), i32(), i32(), i32(), i32()];
  const bias = buf.readDoubleLE(at);
  at += 8;
  const created = take(17).toString('latin1');
  const fileLabel = take(64).toString('utf8').trimEnd();
  take(3);
  const variables: VariableRecord[] = [];
  const valueLabels: Array<{ values: Buffer[]; labels: string[]; indexes: number[] }> = [];
  const extensions = new Map<number, Buffer>();
  for (;;) {
    const type = i32();
    if (type === 2) {
      const [width, hasLabel, missing, print] = [i32(), i32(), i32(), i32()];
      i32();
      const short = take(8).toString('latin1').trimEnd();
      expect(missing).toBe(0);
      const record: VariableRecord = { width, print, short };
      if (hasLabel) {
        const length = i32();
        record.label = take(Math.ceil(length / 4) * 4)
          .subarray(0, length)
          .toString('utf8');
      }
      variables.push(record);
    } else if (type === 3) {
      const values: Buffer[] = [];
      const labels: string[] = [];
      for (let n = i32(); n > 0; n -= 1) {
        values.push(take(8));
        const length = buf[at]!;
        labels.push(buf.subarray(at + 1, at + 1 + length).toString('utf8'));
        at += Math.ceil((length + 1) / 8) * 8;
      }
      expect(i32()).toBe(4);
      const indexes = Array.from({ length: i32() }, i32);
      valueLabels.push({ values, labels, indexes });
    } else if (type === 7) {
      const [subtype, size, count] = [i32(), i32(), i32()];
      expect(extensions.has(subtype)).toBe(false);
      extensions.set(subtype, take(size * count));
    } else {
      expect(type).toBe(999);
      expect(i32()).toBe(0);
      break;
    }
  }
  const units: Array<number | null | Buffer> = [];
  while (at < buf.length) {
    const codes = take(8);
    for (const code of codes) {
      if (code === 0) continue;
      if (code === 253) units.push(take(8));
      else if (code === 254) units.push(Buffer.alloc(8, 0x20));
      else if (code === 255) units.push(null);
      else units.push(code - bias);
    }
  }
  const data = { magic, product, layout, caseSize, compression, weight, cases, bias, created, fileLabel };
  return { ...data, variables, valueLabels, extensions, units };
}

/** The cases as lists of values by variable record (a string's continuations joined, as bytes). */
function casesOf(sav: ReturnType<typeof readSav>) {
  const out: Array<Array<number | Buffer | null>> = [];
  let u = 0;
  while (u < sav.units.length) {
    const row: Array<number | Buffer | null> = [];
    sav.variables.forEach((v) => {
      if (v.width === -1) return;
      if (v.width === 0) {
        const unit = sav.units[u++]!;
        row.push(Buffer.isBuffer(unit) ? unit.readDoubleLE(0) : unit);
        return;
      }
      const parts = sav.units.slice(u, (u += Math.ceil(v.width / 8))) as Buffer[];
      row.push(Buffer.concat(parts).subarray(0, v.width));
    });
    out.push(row);
  }
  return out;
}

const text = (value: number | Buffer | null) => (Buffer.isBuffer(value) ? value.toString('utf8').trimEnd() : value);
/** 2026-01-10 in SPSS: seconds since 1582-10-14. */
const DAY_2026_01_10 = 13_987_382_400;

describe('SPSS system file writer', () => {
  it('writes the header, the UTF-8 records and bytecode-compressed cases', async () => {
    const sav = readSav(
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
          column({ name: 'hb', type: 'number', label: '血红蛋白（g/L）', decimals: 2, digits: 3 }),
          column({ name: 'lab_date', type: 'date', label: '采血日期' }),
          column({ name: 'vs_at', type: 'datetime', label: '测量时间' }),
        ],
        [
          ['P001', 1, 140.25, 20463, Date.UTC(2026, 0, 10, 8, 30)],
          ['P002', null, null, null, null],
        ],
      ),
    );
    expect(sav.magic).toBe('$FL2');
    expect(sav.product.startsWith('@(#) SPSS DATA FILE')).toBe(true);
    expect([sav.layout, sav.caseSize, sav.compression, sav.weight, sav.cases, sav.bias]).toEqual([2, 5, 1, 0, 2, 100]);
    expect(sav.created).toBe('05 Mar 2609:02:03');
    expect(sav.fileLabel).toBe('腰椎管狭窄症登记研究');
    expect(sav.variables.map((v) => [v.short, v.width, v.label])).toEqual([
      ['SUBJECT_', 4, '编号'],
      ['GENDER', 0, '性别'],
      ['HB', 0, '血红蛋白（g/L）'],
      ['LAB_DATE', 0, '采血日期'],
      ['VS_AT', 0, '测量时间'],
    ]);
    // A4, F8.0, F8.2, DATE11, DATETIME20.
    expect(sav.variables.map((v) => v.print.toString(16))).toEqual(['10400', '50800', '50802', '140b00', '161400']);
    const integerInfo = sav.extensions.get(3)!;
    expect(integerInfo.readInt32LE(28)).toBe(65001);
    expect(sav.extensions.get(20)!.toString('latin1')).toBe('UTF-8');
    expect(sav.extensions.get(13)!.toString('utf8')).toBe(
      'SUBJECT_=subject_code\tGENDER=gender\tHB=hb\tLAB_DATE=lab_date\tVS_AT=vs_at',
    );
    expect([...sav.extensions.keys()]).toEqual([3, 4, 11, 13, 20]);
    expect(sav.valueLabels).toEqual([
      {
        values: [Buffer.from(new Float64Array([1]).buffer), Buffer.from(new Float64Array([0]).buffer)],
        labels: ['男', '女'],
        indexes: [2],
      },
    ]);
    // Seconds since 1582-10-14 (+ 8.5 h for the date-time).
    expect(casesOf(sav).map((row) => row.map(text))).toEqual([
      ['P001', 1, 140.25, DAY_2026_01_10, DAY_2026_01_10 + 8.5 * 3600],
      ['P002', null, null, null, null],
    ]);
  });

  it('keeps multi-line and Chinese text whole, and labels text codes (records 3/4 up to 8 bytes, 7.21 beyond)', async () => {
    const note = '第一行\n第二行，"引号"\r\n第三行';
    const sav = readSav(
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
          column({ name: 'approach', type: 'text', width: 12, labels: [['open_surgery', '开放减压融合']] }),
          column({ name: 'history_note', type: 'text', width: Buffer.byteLength(note), multiline: true }),
        ],
        [
          ['han', 'open_surgery', note],
          [null, null, null],
        ],
      ),
    );
    expect(casesOf(sav).map((row) => row.map(text))).toEqual([
      ['han', 'open_surgery', note],
      ['', '', ''],
    ]);
    expect(sav.valueLabels.map((v) => [v.values.map((b) => b.toString().trimEnd()), v.labels, v.indexes])).toEqual([
      [['han', 'hui'], ['汉族', '回族'], [1]],
    ]);
    const long = sav.extensions.get(21)!;
    let at = 0;
    const i32 = () => ((at += 4), long.readInt32LE(at - 4));
    const bytes = (n: number) => ((at += n), long.subarray(at - n, at).toString('utf8'));
    expect(bytes(i32())).toBe('approach');
    expect([i32(), i32()]).toEqual([12, 1]);
    expect(bytes(i32())).toBe('open_surgery');
    expect(bytes(i32())).toBe('开放减压融合');
    expect(at).toBe(long.length);
  });

  it('writes a text over 255 bytes as a very long string of 255-byte segments, and cuts one over 32,767 bytes', async () => {
    const long = `${'长'.repeat(150)}END`;
    const huge = '字'.repeat(12_000);
    const sav = readSav(
      await write(
        [
          column({ name: 'report', type: 'text', width: Buffer.byteLength(long) }),
          column({ name: 'n', type: 'number' }),
          column({ name: 'huge', type: 'text', width: Buffer.byteLength(huge) }),
        ],
        [[long, 7, huge]],
      ),
    );
    // 453 bytes: two segments (255 and 453 − 252 = 201 wide); 32,767 bytes (cut): 131 segments.
    const widths = sav.variables.filter((v) => v.width !== -1).map((v) => v.width);
    expect(widths.slice(0, 3)).toEqual([255, 201, 0]);
    expect(widths.length).toBe(3 + 131);
    expect(widths.at(-1)).toBe(32_767 - 130 * 252);
    const map = sav.extensions.get(14)!.toString('latin1');
    expect(map).toBe(`REPORT=00453\0\tHUGE=32767\0\t`);
    const row = casesOf(sav)[0]!;
    const stitch = (segments: Array<number | Buffer | null>) =>
      String(text(Buffer.concat(segments.map((s) => (s as Buffer).subarray(0, 255)))));
    expect(stitch(row.slice(0, 2))).toBe(long);
    expect(row[2]).toBe(7);
    const cut = stitch(row.slice(3));
    expect(Buffer.byteLength(cut)).toBe(32_766);
    expect(cut).toBe('字'.repeat(10_922));
    // One display entry per segment, none for the continuation records.
    expect(sav.extensions.get(11)!.length).toBe(4 * 3 * (3 + 131));
  });

  it('makes names SPSS accepts: no reserved word, at most 64 bytes, unique without regard to case', () => {
    expect(savNames(['to', 'AND', 'Sbp', 'sbp', '1st', 'a.', `x${'y'.repeat(70)}`])).toEqual([
      'to_',
      'AND_',
      'Sbp',
      'sbp_2',
      'v1st',
      'a',
      `x${'y'.repeat(63)}`,
    ]);
  });
});
