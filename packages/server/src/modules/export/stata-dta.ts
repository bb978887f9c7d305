import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import {
  ByteSink,
  fixedField,
  MONTHS,
  utf8Prefix,
  wallClock,
  type DataColumn,
  type Dataset,
} from './statistics-table.js';

/**
 * A Stata dataset in .dta format 118 (Stata 14 and later, UTF-8): the XML-like tagged sections of Stata's
 * "dta" specification, little-endian. Numbers, dates (%td) and date-times (%tc) are doubles; a text is str#
 * up to 2045 bytes and strL beyond or when it holds a line break; value labels are attached to numbers. Stata
 * labels numbers only, so a choice coded as text is written as 1, 2, … in its choices' order with the choices'
 * labels (a code outside them gets the next number, labelled with the code itself).
 */

/** Days from 1960-01-01 (Stata's day zero) to 1970-01-01. */
const EPOCH_1970_DAYS = 3653;
const DAY_MS = 86_400_000;
/** Format 118 limits: variables, str# width, label lengths in characters, value label text in bytes. */
const MAX_VARIABLES = 32_767;
export const DTA_MAX_STR = 2045;
const LABEL_CHARS = 80;
const VALUE_LABEL_BYTES = 32_000;
const TYPE = { strL: 32_768, double: 65_526 } as const;
/** The largest double Stata holds; above are its missing values. */
const MAX_DOUBLE = 8.988465674311579e307;
const MISSING = Buffer.from([0, 0, 0, 0, 0, 0, 0xe0, 0x7f]);
const RESERVED = new Set(
  '_all _b byte _coef _cons double float if in int long _n _N _pi _pred _rc _skip strL using with'.split(' '),
);

interface DtaVariable {
  column: DataColumn;
  name: string;
  /** A type code: 1–2045 str#, strL, or double. */
  type: number;
  /** Bytes in each observation. */
  size: number;
  format: string;
  /** Text codes → their numbers (a choice coded as text), or null. */
  codes: Map<string, number> | null;
  /** Number → label, for the value label table named after the variable. */
  labels: Map<number, string>;
}

/** Names Stata accepts: letters, digits and _, not a digit first, no reserved word, ≤ 32 characters, unique. */
export function dtaNames(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((raw) => {
    let base = [...raw.replace(/[^\p{L}\p{N}_]/gu, '_')].slice(0, 32).join('');
    if (!/^[\p{L}_]/u.test(base)) base = `v${base}`.slice(0, 32);
    if (RESERVED.has(base) || /^str\d+$/.test(base)) base = `${base}_`;
    let out = base;
    for (let n = 2; used.has(out); n += 1) out = `${[...base].slice(0, 32 - `_${n}`.length).join('')}_${n}`;
    used.add(out);
    return out;
  });
}

const cutChars = (text: string, max: number) => [...text].slice(0, max).join('');

function variables(data: Dataset): DtaVariable[] {
  const names = dtaNames(data.columns.map((c) => c.name));
  return data.columns.map((column, i) => {
    const labels = new Map<number, string>();
    let codes: Map<string, number> | null = null;
    if (column.type === 'text' && column.labels.length > 0) {
      codes = new Map();
      for (const [code, label] of column.labels) {
        if (codes.has(String(code))) continue;
        codes.set(String(code), codes.size + 1);
        labels.set(codes.size, label);
      }
    } else if (column.type === 'number') {
      for (const [code, label] of column.labels) {
        if (typeof code === 'number' && Number.isInteger(code) && Math.abs(code) < 2 ** 31 && !labels.has(code)) {
          labels.set(code, label);
        }
      }
    }
    const text = column.type === 'text' && !codes;
    const strL = text && (column.width > DTA_MAX_STR || column.multiline);
    const type = !text ? TYPE.double : strL ? TYPE.strL : column.width;
    const format =
      column.type === 'date'
        ? '%td'
        : column.type === 'datetime'
          ? '%tc'
          : text
            ? `%-${strL ? 9 : Math.min(column.width, 244)}s`
            : '%10.0g';
    return { column, name: names[i]!, type, size: !text || strL ? 8 : column.width, format, codes, labels };
  });
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const tag = (name: string, body: Buffer) => Buffer.concat([Buffer.from(`<${name}>`), body, Buffer.from(`</${name}>`)]);
const strip = (text: string) => text.replace(/\0/g, '');

function headerSection(data: Dataset, count: number, now: Date, timeZone: string) {
  const clock = wallClock(now, timeZone);
  const label = Buffer.from(strip(cutChars(data.label, LABEL_CHARS)), 'utf8');
  const stamp = `${String(clock.day).padStart(2, '0')} ${MONTHS[clock.month - 1]} ${clock.year} ${clock.time.slice(0, 5)}`;
  return Buffer.concat([
    Buffer.from('<stata_dta>'),
    tag(
      'header',
      Buffer.concat([
        tag('release', Buffer.from('118')),
        tag('byteorder', Buffer.from('LSF')),
        tag('K', u16(count)),
        tag('N', u64(data.rowCount)),
        tag('label', Buffer.concat([u16(label.length), label])),
        tag('timestamp', Buffer.concat([Buffer.from([stamp.length]), Buffer.from(stamp, 'latin1')])),
      ]),
    ),
  ]);
}

/** The sections from variable types to characteristics, each a fixed size per variable. */
function descriptorSections(vars: DtaVariable[]): Array<[string, Buffer]> {
  const each = (size: number, text: (v: DtaVariable) => string) =>
    Buffer.concat(vars.map((v) => fixedField(strip(text(v)), size)));
  return [
    ['variable_types', Buffer.concat(vars.map((v) => u16(v.type)))],
    ['varnames', each(129, (v) => v.name)],
    ['sortlist', Buffer.alloc(2 * (vars.length + 1))],
    ['formats', each(57, (v) => v.format)],
    ['value_label_names', each(129, (v) => (v.labels.size > 0 || v.codes ? v.name : ''))],
    ['variable_labels', each(321, (v) => cutChars(v.column.label, LABEL_CHARS))],
    ['characteristics', Buffer.alloc(0)],
  ];
}

function valueLabelTable(v: DtaVariable): Buffer {
  const entries = [...v.labels.entries()].sort((a, b) => a[0] - b[0]);
  const texts = entries.map(([, label]) =>
    Buffer.concat([utf8Prefix(strip(label), VALUE_LABEL_BYTES - 1), Buffer.alloc(1)]),
  );
  const txtlen = texts.reduce((n, t) => n + t.length, 0);
  const off = Buffer.alloc(4 * entries.length);
  const val = Buffer.alloc(4 * entries.length);
  let at = 0;
  entries.forEach(([value], i) => {
    off.writeInt32LE(at, 4 * i);
    val.writeInt32LE(value, 4 * i);
    at += texts[i]!.length;
  });
  const table = Buffer.concat([u32(entries.length), u32(txtlen), off, val, ...texts]);
  return tag('lbl', Buffer.concat([u32(table.length), fixedField(v.name, 129), Buffer.alloc(3), table]));
}

/** Writes a dataset as a Stata .dta (format 118); `now` and `timeZone` date the file's header. */
export async function writeDta(file: string, data: Dataset, options: { now: Date; timeZone: string }) {
  const vars = variables(data);
  if (vars.length > MAX_VARIABLES) throw new Error(`Stata holds at most ${MAX_VARIABLES} variables`);
  const strlsFile = `${file}.strls`;
  const sink = new ByteSink(file);
  const strls = new ByteSink(strlsFile);
  const map: number[] = [0];
  await sink.write(headerSection(data, vars.length, options.now, options.timeZone));
  map.push(sink.position);
  // The map holds every section's offset; written as zeros now, filled in at the end.
  await sink.write(tag('map', Buffer.alloc(14 * 8)));
  for (const [name, body] of descriptorSections(vars)) {
    map.push(sink.position);
    await sink.write(tag(name, body));
  }
  map.push(sink.position);
  await sink.write(Buffer.from('<data>'));
  const record = vars.reduce((n, v) => n + v.size, 0);
  let o = 0;
  for await (const row of data.rows()) {
    o += 1;
    const out = Buffer.alloc(record);
    let at = 0;
    for (let i = 0; i < vars.length; i += 1) {
      const v = vars[i]!;
      const cell = row[i] ?? null;
      if (v.type === TYPE.double) {
        let x = typeof cell === 'number' ? cell : null;
        if (v.codes && cell !== null) {
          const text = String(cell);
          x = v.codes.get(text) ?? null;
          if (x === null) {
            x = v.codes.size + 1;
            v.codes.set(text, x);
            v.labels.set(x, text);
          }
        }
        if (x !== null && v.column.type === 'date') x += EPOCH_1970_DAYS;
        if (x !== null && v.column.type === 'datetime') x += EPOCH_1970_DAYS * DAY_MS;
        if (x === null || Math.abs(x) > MAX_DOUBLE) MISSING.copy(out, at);
        else out.writeDoubleLE(x, at);
      } else if (v.type === TYPE.strL) {
        const text = cell === null ? '' : strip(String(cell));
        if (text !== '') {
          out.writeUInt16LE(i + 1, at);
          out.writeUIntLE(o, at + 2, 6);
          const bytes = Buffer.from(text, 'utf8');
          const gso = Buffer.concat([
            Buffer.from('GSO'),
            u32(i + 1),
            u64(o),
            Buffer.from([130]),
            u32(bytes.length + 1),
          ]);
          await strls.write(Buffer.concat([gso, bytes, Buffer.alloc(1)]));
        }
      } else if (cell !== null) {
        utf8Prefix(strip(String(cell)), v.size).copy(out, at);
      }
      at += v.size;
    }
    await sink.write(out);
  }
  if (o !== data.rowCount) throw new Error(`dta: ${o} observations written, ${data.rowCount} announced`);
  await sink.write(Buffer.from('</data>'));
  map.push(sink.position);
  await sink.write(Buffer.from('<strls>'));
  await sink.close();
  await strls.close();
  await pipeline(fs.createReadStream(strlsFile), fs.createWriteStream(file, { flags: 'a' }));
  await fs.promises.rm(strlsFile, { force: true });
  const tail = new ByteSink(file, true, sink.position + strls.position);
  await tail.write(Buffer.from('</strls>'));
  map.push(tail.position);
  await tail.write(Buffer.from('<value_labels>'));
  for (const v of vars) if (v.labels.size > 0) await tail.write(valueLabelTable(v));
  await tail.write(Buffer.from('</value_labels>'));
  map.push(tail.position);
  await tail.write(Buffer.from('</stata_dta>'));
  map.push(tail.position);
  await tail.close();
  const handle = await fs.promises.open(file, 'r+');
  try {
    await handle.write(Buffer.concat(map.map(u64)), 0, 14 * 8, map[1]! + '<map>'.length);
  } finally {
    await handle.close();
  }
}
