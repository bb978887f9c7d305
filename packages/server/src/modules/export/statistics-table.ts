import fs from 'node:fs';
import { once } from 'node:events';
import readline from 'node:readline';
import { finished } from 'node:stream/promises';
import { testExportLabel } from '@ecrf/core';
import { wideLayout } from './export-csv.js';
import type { StatVariable } from './export-statistics.js';
import { checkCancel, patientPass, TextSink, type Cell, type WriteContext } from './export-writer-common.js';

/**
 * The wide rows as a typed table for the statistics packages' own files (.sav, .dta). Their dictionaries come
 * before the data and must know each column's type and each text's width, so the rows are read from the
 * database once, spooled to a JSON-lines file while every column is measured, and read back from there: one
 * read of the study, consistent within the file, one row in memory at a time.
 */

export type DataType = 'number' | 'date' | 'datetime' | 'text';

export interface DataColumn {
  name: string;
  label: string;
  /**
   * The type every value of the column reads as: a number, date or date-time column with a value that does not
   * (a number typed as text, a partial date) is text, so no value is ever dropped for its type.
   */
  type: DataType;
  /** Text: the longest value (or labelled code) in UTF-8 bytes, at least 1. */
  width: number;
  /** Numbers: the most digits after the point, and before it, of any value (display formats). */
  decimals: number;
  digits: number;
  /** Text: some value holds a line break. */
  multiline: boolean;
  /** Value labels: numeric codes for numbers, the codes as text for text. */
  labels: Array<[number | string, string]>;
}

/**
 * A value as the writers take it: a number; a date as whole days and a date-time as milliseconds since
 * 1970-01-01 (its wall-clock time, as entered, without a time zone); text; null when missing.
 */
export type DataCell = number | string | null;

export interface Dataset {
  label: string;
  columns: DataColumn[];
  rowCount: number;
  rows: () => AsyncIterable<DataCell[]>;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?$/;
const DAY_MS = 86_400_000;

export function numberOf(cell: Cell): number | null {
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : null;
  if (cell === null) return null;
  const text = cell.trim();
  return NUMBER.test(text) ? Number(text) : null;
}

/** Whole days since 1970-01-01 of a full calendar date from 1583 (the Gregorian calendar's first whole year). */
export function dayOf(text: string): number | null {
  const m = DATE.exec(text.trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (y < 1583 || back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return t / DAY_MS;
}

/** Milliseconds since 1970-01-01 of a date and time of day (`2026-01-10 08:30`, seconds optional). */
export function instantOf(text: string): number | null {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return null;
  const day = dayOf(`${m[1]}-${m[2]}-${m[3]}`);
  const [h, min, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (day === null || h > 23 || min > 59 || s > 59) return null;
  const ms = m[7] ? Math.round(Number(m[7]) * 1000) : 0;
  return day * DAY_MS + ((h * 60 + min) * 60 + s) * 1000 + ms;
}

/** What one pass over a column saw: whether every value reads as its declared type, and its sizes. */
class ColumnProfile {
  numbers = true;
  days = true;
  instants = true;
  bytes = 0;
  decimals = 0;
  digits = 1;
  multiline = false;
  constructor(private readonly declared: StatVariable['type']) {}

  see(cell: Cell) {
    if (cell === null || cell === '') return;
    const bytes = typeof cell === 'number' ? String(cell).length : Buffer.byteLength(cell);
    if (bytes > this.bytes) this.bytes = bytes;
    if (!this.multiline && typeof cell === 'string' && /[\r\n]/.test(cell)) this.multiline = true;
    if (this.declared === 'number' && this.numbers) {
      const n = numberOf(cell);
      if (n === null) this.numbers = false;
      else this.measure(n);
    }
    if (this.declared === 'date' && this.days) this.days = typeof cell === 'string' && dayOf(cell) !== null;
    if (this.declared === 'datetime' && this.instants) {
      this.instants = typeof cell === 'string' && instantOf(cell) !== null;
    }
  }

  private measure(n: number) {
    // The shortest decimal text that reads back as n (JavaScript's own), in plain or exponent notation.
    const [mantissa, exponent = '0'] = String(Math.abs(n)).split('e');
    const [whole, fraction = ''] = mantissa!.split('.');
    const shift = Number(exponent);
    this.digits = Math.max(this.digits, whole!.length + Math.max(0, shift));
    this.decimals = Math.max(this.decimals, Math.min(16, Math.max(0, fraction.length - shift)));
  }

  type(): DataType {
    if (this.declared === 'number' && this.numbers) return 'number';
    if (this.declared === 'date' && this.days) return 'date';
    if (this.declared === 'datetime' && this.instants) return 'datetime';
    return 'text';
  }
}

/** Labels are one line: a line break in a title would break the packages' dictionary displays. */
const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();

function columnOf(v: StatVariable, profile: ColumnProfile): DataColumn {
  const type = profile.type();
  const labels: DataColumn['labels'] =
    type === 'number'
      ? v.values.flatMap(([code, label]) => {
          const n = numberOf(code);
          return n === null ? [] : [[n, oneLine(label)] as [number, string]];
        })
      : type === 'text'
        ? v.values.map(([code, label]) => [code, oneLine(label)])
        : [];
  const codeBytes = type === 'text' ? Math.max(0, ...labels.map(([code]) => Buffer.byteLength(String(code)))) : 0;
  return {
    name: v.name,
    label: oneLine(v.label),
    type,
    width: Math.max(1, profile.bytes, codeBytes),
    decimals: type === 'number' ? profile.decimals : 0,
    digits: type === 'number' ? profile.digits : 0,
    multiline: type === 'text' && profile.multiline,
    labels,
  };
}

function converter(type: DataType): (cell: Cell) => DataCell {
  switch (type) {
    case 'number':
      return numberOf;
    case 'date':
      return (cell) => (cell === null ? null : dayOf(String(cell)));
    case 'datetime':
      return (cell) => (cell === null ? null : instantOf(String(cell)));
    case 'text':
      return (cell) => (cell === null ? null : String(cell));
  }
}

/** Measures the rows as they pass, then answers each column's type, sizes and labels, and its converter. */
export class TableProfile {
  private readonly profiles: ColumnProfile[];
  constructor(private readonly vars: readonly StatVariable[]) {
    this.profiles = vars.map((v) => new ColumnProfile(v.type));
  }
  see(row: readonly Cell[]) {
    row.forEach((cell, i) => this.profiles[i]!.see(cell));
  }
  columns(): DataColumn[] {
    return this.vars.map((v, i) => columnOf(v, this.profiles[i]!));
  }
}

/** A raw cell as its column's writers take it ('' is missing, as null). */
export function cellReader(columns: readonly DataColumn[]): (row: readonly Cell[]) => DataCell[] {
  const converters = columns.map((c) => converter(c.type));
  return (row) => row.map((cell, i) => (cell === '' || cell === null ? null : converters[i]!(cell)));
}

/**
 * Reads the export's wide rows once (the CSV wide layout, with codes), spooling them to `spool` and measuring
 * every column, and answers them as a table the .sav and .dta writers read (a cancel stops either pass).
 */
export async function spoolStatistics(ctx: WriteContext, vars: readonly StatVariable[], spool: string) {
  const layout = wideLayout(ctx.plan);
  const profile = new TableProfile(vars);
  const sink = new TextSink(spool);
  let rowCount = 0;
  for await (const batch of patientPass(ctx)) {
    for (const row of layout.rows(batch, false)) {
      profile.see(row);
      await sink.write(`${JSON.stringify(row)}\n`);
      rowCount += 1;
    }
  }
  await sink.close();
  const columns = profile.columns();
  const read = cellReader(columns);
  async function* rows(): AsyncGenerator<DataCell[]> {
    const input = fs.createReadStream(spool, { encoding: 'utf8' });
    const lines = readline.createInterface({ input, crlfDelay: Infinity });
    let n = 0;
    try {
      for await (const line of lines) {
        if (line === '') continue;
        if (++n % 1000 === 0) checkCancel(ctx.signal);
        yield read(JSON.parse(line) as Cell[]);
      }
    } finally {
      lines.close();
      input.destroy();
    }
  }
  // A test export's data set label says so (the .sav file label, the .dta data label): no first row in these files.
  const label = ctx.test ? testExportLabel(ctx.studyName) : ctx.studyName;
  const dataset: Dataset = { label, columns, rowCount, rows };
  return dataset;
}

// ---------------------------------------------------------------------------------------------------------------
// What both writers need: a binary file written in large chunks, and UTF-8 cut without splitting a character.

/** A binary file written in 64 KB chunks, waiting for the disk when it falls behind; counts its bytes. */
export class ByteSink {
  private parts: Buffer[] = [];
  private pending = 0;
  /** Bytes written so far (the position of the next byte). */
  position = 0;
  private readonly stream: fs.WriteStream;
  /** `append`: add to the end of a file of `start` bytes. */
  constructor(file: string, append = false, start = 0) {
    this.stream = fs.createWriteStream(file, { flags: append ? 'a' : 'w' });
    this.position = start;
  }
  async write(bytes: Buffer) {
    this.parts.push(bytes);
    this.pending += bytes.length;
    this.position += bytes.length;
    if (this.pending >= 1 << 16) await this.flush();
  }
  private async flush() {
    if (this.pending === 0) return;
    const ok = this.stream.write(Buffer.concat(this.parts, this.pending));
    this.parts = [];
    this.pending = 0;
    if (!ok) await once(this.stream, 'drain');
  }
  async close() {
    await this.flush();
    this.stream.end();
    await finished(this.stream);
  }
}

/** The UTF-8 bytes of a text, cut to at most `max` bytes at a character boundary. */
export function utf8Prefix(text: string, max: number): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return bytes;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end);
}

/** A text in a fixed field of `size` bytes, cut at a character boundary and padded with `pad`. */
export function fixedField(text: string, size: number, pad = 0): Buffer {
  const out = Buffer.alloc(size, pad);
  utf8Prefix(text, size).copy(out);
  return out;
}

/** A moment's wall-clock date and time in a time zone: `{ year, month (1–12), day, time: 'hh:mm:ss' }`. */
export function wallClock(now: Date, timeZone: string) {
  const [date, time] = now.toLocaleString('sv-SE', { timeZone, hour12: false }).split(' ');
  const [year, month, day] = date!.split('-').map(Number);
  return { year: year!, month: month!, day: day!, time: time! };
}

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
