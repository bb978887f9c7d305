import {
  ByteSink,
  fixedField,
  MONTHS,
  utf8Prefix,
  wallClock,
  type DataCell,
  type DataColumn,
  type Dataset,
} from './statistics-table.js';

/**
 * An SPSS system file (.sav) as the SPSS/PSPP system file format describes it: header; variable records (a
 * long string as continuation records, a string over 255 bytes as 255-byte segments); value labels (records
 * 3 and 4 for numbers and strings up to 8 bytes, record 7.21 for longer strings); records 7.3 integer info
 * (character code 65001), 7.4 float info, 7.11 display, 7.13 long names, 7.14 very long strings, 7.20
 * encoding "UTF-8"; 999; then the cases, bytecode-compressed. Everything is UTF-8.
 */

/** Seconds from SPSS's day zero, 1582-10-14, to 1970-01-01. */
const EPOCH_1970 = 12_219_379_200;
/** The widest string variable SPSS holds; a longer text is cut there (at a character boundary). */
export const SAV_MAX_WIDTH = 32_767;
/** SPSS's documented limits for a variable label and a value label. */
const VARIABLE_LABEL_BYTES = 255;
const VALUE_LABEL_BYTES = 120;
const BIAS = 100;
const SYSMIS = -Number.MAX_VALUE;
const SPACE = 0x20;
/** Words SPSS syntax reserves; no variable may be named one. */
const RESERVED = new Set(['ALL', 'AND', 'BY', 'EQ', 'GE', 'GT', 'LE', 'LT', 'NE', 'NOT', 'OR', 'TO', 'WITH']);

const FORMAT = { A: 1, F: 5, DATE: 20, DATETIME: 22 } as const;
const format = (type: number, width: number, decimals = 0) => (type << 16) | (width << 8) | decimals;

interface Segment {
  short: string;
  width: number;
  /** Where its data starts in the value, how many bytes of it it holds, and its 8-byte units. */
  offset: number;
  used: number;
  units: number;
}

interface SavVariable {
  column: DataColumn;
  name: string;
  /** 0 numeric, else the string width in bytes. */
  width: number;
  segments: Segment[];
  /** The 1-based dictionary index of its first record (value labels point at it). */
  index: number;
  print: number;
  displayWidth: number;
}

/** Long names SPSS accepts: its name characters, a letter first, no reserved word, ≤ 64 bytes, unique. */
export function savNames(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((raw) => {
    let base = raw.replace(/[^\p{L}\p{N}_.@#$]/gu, '_').replace(/\.+$/, '');
    if (!/^[\p{L}@]/u.test(base)) base = `v${base}`;
    if (RESERVED.has(base.toUpperCase())) base = `${base}_`;
    base = utf8Prefix(base, 64).toString('utf8');
    let out = base;
    for (let n = 2; used.has(out.toLowerCase()); n += 1) {
      const suffix = `_${n}`;
      out = `${utf8Prefix(base, 64 - suffix.length).toString('utf8')}${suffix}`;
    }
    used.add(out.toLowerCase());
    return out;
  });
}

/** Unique 8-byte short names in capitals, derived from the long names (the long names record maps them back). */
function shortNames() {
  const used = new Set<string>();
  return (long: string) => {
    let base = long.toUpperCase().replace(/[^A-Z0-9_@#$]/g, '');
    if (!/^[A-Z@]/.test(base)) base = `V${base}`;
    for (let n = 0; ; n += 1) {
      const suffix = n === 0 ? '' : String(n);
      const candidate = `${base.slice(0, 8 - suffix.length)}${suffix}`;
      if (!used.has(candidate) && !RESERVED.has(candidate)) {
        used.add(candidate);
        return candidate;
      }
    }
  };
}

/** A string's segments: one up to 255 bytes; a very long string one per 252 bytes, 255 bytes of data each. */
function segmentsOf(width: number): Array<Omit<Segment, 'short'>> {
  const units = (w: number) => Math.ceil(w / 8);
  if (width === 0) return [{ width: 0, offset: 0, used: 8, units: 1 }];
  if (width <= 255) return [{ width, offset: 0, used: width, units: units(width) }];
  const n = Math.ceil(width / 252);
  return Array.from({ length: n }, (_, i) => {
    const w = i < n - 1 ? 255 : width - (n - 1) * 252;
    return { width: w, offset: i * 255, used: Math.max(0, Math.min(width - i * 255, 255)), units: units(w) };
  });
}

function printFormat(column: DataColumn, width: number): number {
  if (width > 0) return format(FORMAT.A, Math.min(width, 255));
  if (column.type === 'date') return format(FORMAT.DATE, 11);
  if (column.type === 'datetime') return format(FORMAT.DATETIME, 20);
  const decimals = Math.min(column.decimals, 16, Math.max(0, 40 - column.digits - 2));
  return format(FORMAT.F, Math.min(40, Math.max(8, column.digits + 1 + (decimals > 0 ? decimals + 1 : 0))), decimals);
}

function dictionary(data: Dataset): SavVariable[] {
  const names = savNames(data.columns.map((c) => c.name));
  const short = shortNames();
  let index = 1;
  return data.columns.map((column, i) => {
    const width = column.type === 'text' ? Math.min(column.width, SAV_MAX_WIDTH) : 0;
    const name = names[i]!;
    const segments = segmentsOf(width).map((s, k) => ({
      ...s,
      short: short(k === 0 ? name : `${name.slice(0, 5)}${k}`),
    }));
    const v: SavVariable = {
      column,
      name,
      width,
      segments,
      index,
      print: printFormat(column, width),
      displayWidth: width > 0 ? Math.min(width, 32) : (printFormat(column, 0) >> 8) & 0xff,
    };
    index += segments.reduce((n, s) => n + s.units, 0);
    return v;
  });
}

/** Little-endian int32s. */
const ints = (...values: number[]) => {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => out.writeInt32LE(v, 4 * i));
  return out;
};
const doubles = (...values: number[]) => {
  const out = Buffer.alloc(8 * values.length);
  values.forEach((v, i) => out.writeDoubleLE(v, 8 * i));
  return out;
};
const padTo = (bytes: Buffer, multiple: number, pad = SPACE) =>
  Buffer.concat([bytes, Buffer.alloc((multiple - (bytes.length % multiple)) % multiple, pad)]);
/** A type 7 record of bytes (size 1). */
const textRecord = (subtype: number, body: Buffer) => Buffer.concat([ints(7, subtype, 1, body.length), body]);

function header(data: Dataset, vars: SavVariable[], now: Date, timeZone: string): Buffer {
  const clock = wallClock(now, timeZone);
  const units = vars.reduce((n, v) => n + v.segments.reduce((m, s) => m + s.units, 0), 0);
  const date = `${String(clock.day).padStart(2, '0')} ${MONTHS[clock.month - 1]} ${String(clock.year % 100).padStart(2, '0')}`;
  return Buffer.concat([
    Buffer.from('$FL2', 'latin1'),
    fixedField('@(#) SPSS DATA FILE eCRF data export', 60, SPACE),
    ints(2, units, 1, 0, data.rowCount),
    doubles(BIAS),
    Buffer.from(date, 'latin1'),
    Buffer.from(clock.time, 'latin1'),
    fixedField(data.label, 64, SPACE),
    Buffer.alloc(3),
  ]);
}

function variableRecords(v: SavVariable): Buffer[] {
  const out: Buffer[] = [];
  v.segments.forEach((s, k) => {
    const label = k === 0 && v.column.label ? utf8Prefix(v.column.label, VARIABLE_LABEL_BYTES) : null;
    const print = k === 0 ? v.print : format(FORMAT.A, s.width);
    out.push(ints(2, s.width, label ? 1 : 0, 0, print, print), fixedField(s.short, 8, SPACE));
    if (label) out.push(ints(label.length), padTo(label, 4));
    // A string wider than 8 bytes: one dummy record for each further 8 bytes.
    for (let u = 1; u < s.units; u += 1) out.push(ints(2, -1, 0, 0, 0, 0), Buffer.alloc(8, SPACE));
  });
  return out;
}

/** Value labels once per code (a repeated code keeps its first label). */
function labelsOf(column: DataColumn) {
  const seen = new Set<string>();
  return column.labels.filter(([code]) => !seen.has(String(code)) && seen.add(String(code)));
}

function valueLabelRecords(vars: SavVariable[]): Buffer[] {
  const out: Buffer[] = [];
  for (const v of vars) {
    const labels = labelsOf(v.column);
    if (labels.length === 0 || v.width > 8) continue;
    out.push(ints(3, labels.length));
    for (const [code, text] of labels) {
      const value = v.width === 0 ? doubles(Number(code)) : fixedField(String(code), 8, SPACE);
      const label = utf8Prefix(text, VALUE_LABEL_BYTES);
      out.push(value, padTo(Buffer.concat([Buffer.from([label.length]), label]), 8, 0));
    }
    out.push(ints(4, 1, v.index));
  }
  return out;
}

function longStringLabels(vars: SavVariable[]): Buffer | null {
  const parts: Buffer[] = [];
  for (const v of vars) {
    const labels = labelsOf(v.column);
    if (labels.length === 0 || v.width <= 8) continue;
    const name = Buffer.from(v.name, 'utf8');
    parts.push(ints(name.length), name, ints(v.width, labels.length));
    for (const [code, text] of labels) {
      const label = utf8Prefix(text, VALUE_LABEL_BYTES);
      parts.push(ints(v.width), fixedField(String(code), v.width, SPACE), ints(label.length), label);
    }
  }
  return parts.length === 0 ? null : textRecord(21, Buffer.concat(parts));
}

function extensionRecords(vars: SavVariable[]): Buffer[] {
  const segments = vars.flatMap((v) => v.segments.map((s, k) => ({ v, s, k })));
  const display = segments.flatMap(({ v, s, k }) => [
    v.width === 0 && v.column.labels.length === 0 ? 3 : 1,
    k === 0 ? v.displayWidth : Math.min(s.width, 32),
    v.width === 0 ? 1 : 0,
  ]);
  const longNames = vars.map((v) => `${v.segments[0]!.short}=${v.name}`).join('\t');
  const veryLong = vars
    .filter((v) => v.segments.length > 1)
    .map((v) => `${v.segments[0]!.short}=${String(v.width).padStart(5, '0')}\0\t`)
    .join('');
  const lowest = Buffer.alloc(8);
  lowest.writeBigUInt64LE(0xffeffffffffffffen);
  const out: Buffer[] = [
    ints(7, 3, 4, 8, 1, 0, 0, -1, 1, 1, 2, 65001),
    Buffer.concat([ints(7, 4, 8, 3), doubles(SYSMIS, Number.MAX_VALUE), lowest]),
    Buffer.concat([ints(7, 11, 4, display.length), ints(...display)]),
    textRecord(13, Buffer.from(longNames, 'utf8')),
  ];
  if (veryLong) out.push(textRecord(14, Buffer.from(veryLong, 'utf8')));
  out.push(textRecord(20, Buffer.from('UTF-8', 'latin1')));
  const long = longStringLabels(vars);
  if (long) out.push(long);
  out.push(ints(999, 0));
  return out;
}

/**
 * Bytecode compression: blocks of 8 command bytes, each block followed by the 8-byte values its 253 codes
 * announce. Small whole numbers, missing numbers and blank string units take one byte.
 */
class Bytecode {
  private block = Buffer.alloc(72);
  private codes = 0;
  private values = 0;
  private sealed: Buffer[] = [];

  private put(code: number) {
    if (this.codes === 8) this.seal();
    this.block[this.codes++] = code;
  }
  private seal() {
    this.sealed.push(Buffer.from(this.block.subarray(0, 8 + 8 * this.values)));
    this.block.fill(0);
    this.codes = 0;
    this.values = 0;
  }
  number(x: number | null) {
    if (x === null) return this.put(255);
    if (Number.isInteger(x) && x >= 1 - BIAS && x <= 251 - BIAS) return this.put(x + BIAS);
    this.put(253);
    this.block.writeDoubleLE(x, 8 + 8 * this.values++);
  }
  /** The 8 bytes of `bytes` at `at`. */
  unit(bytes: Buffer, at: number) {
    let blank = true;
    for (let i = at; i < at + 8; i += 1) if (bytes[i] !== SPACE) blank = false;
    if (blank) return this.put(254);
    this.put(253);
    bytes.copy(this.block, 8 + 8 * this.values++, at, at + 8);
  }
  /** The blocks complete so far (all of them, the last padded with code 0, when `end`). */
  take(end = false): Buffer[] {
    if (end && this.codes > 0) this.seal();
    const out = this.sealed;
    this.sealed = [];
    return out;
  }
}

function numericValue(column: DataColumn, cell: DataCell): number | null {
  if (typeof cell !== 'number') return null;
  if (column.type === 'date') return cell * 86_400 + EPOCH_1970;
  if (column.type === 'datetime') return cell / 1000 + EPOCH_1970;
  return cell;
}

/** Writes a dataset as an SPSS system file; `now` and `timeZone` date the file's header. */
export async function writeSav(file: string, data: Dataset, options: { now: Date; timeZone: string }) {
  const vars = dictionary(data);
  const sink = new ByteSink(file);
  await sink.write(header(data, vars, options.now, options.timeZone));
  for (const v of vars) for (const b of variableRecords(v)) await sink.write(b);
  for (const b of valueLabelRecords(vars)) await sink.write(b);
  for (const b of extensionRecords(vars)) await sink.write(b);
  const code = new Bytecode();
  let rows = 0;
  for await (const row of data.rows()) {
    vars.forEach((v, i) => {
      const cell = row[i] ?? null;
      if (v.width === 0) return code.number(numericValue(v.column, cell));
      const bytes = cell === null ? Buffer.alloc(0) : utf8Prefix(String(cell), v.width);
      for (const s of v.segments) {
        const unitBytes = Buffer.alloc(8 * s.units, SPACE);
        bytes.copy(unitBytes, 0, Math.min(s.offset, bytes.length), Math.min(s.offset + s.used, bytes.length));
        for (let at = 0; at < unitBytes.length; at += 8) code.unit(unitBytes, at);
      }
    });
    for (const b of code.take()) await sink.write(b);
    rows += 1;
  }
  for (const b of code.take(true)) await sink.write(b);
  await sink.close();
  if (rows !== data.rowCount) throw new Error(`sav: ${rows} cases written, ${data.rowCount} announced`);
}
