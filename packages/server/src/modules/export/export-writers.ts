import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import {
  excelSheetNames,
  exportCell,
  isChoiceType,
  isEmptyValue,
  isRowType,
  nodesByName,
  numericCodes,
  readChoiceList,
  readRows,
  shiftDate,
  valueText,
  type CrfNode,
  type ExportFormat,
  type ExportVariable,
} from '@ecrf/core';
import {
  odmClinicalDataOpen,
  odmMetadata,
  odmSubjectData,
  ODM_CLINICAL_DATA_CLOSE,
  type OdmEventData,
  type OdmFormData,
  type OdmItemGroupData,
} from '@ecrf/core/interop';
import {
  GENDER_LABELS,
  RECORD_STATE_LABELS,
  SUBJECT_STATE_LABELS,
  type ExportPatient,
  type ExportPlan,
  type ExportRecord,
  type PatientBatch,
  type PlanForm,
} from './export-source.js';

/** What a writer is given: the plan and a way to read the patients again, batch by batch, for some forms. */
export interface WriteContext {
  plan: ExportPlan;
  studyName: string;
  now: Date;
  /** A fresh pass over the patients (key order) with their records of these forms. */
  batches: (crfIds: readonly number[]) => AsyncGenerator<PatientBatch>;
  totalPatients: number;
  /** 0–1 of the work done; the caller turns it into the job's progress. */
  progress: (fraction: number, message: string) => Promise<void>;
  signal: AbortSignal;
  /** A private temporary folder for intermediate files. */
  dir: string;
  /** Writes rows of the REDCap flat CSV (the REDCap module's own mapping), when that format is asked for. */
  redcap?: (ctx: WriteContext, sink: TextSink) => Promise<number>;
}

export interface WrittenFile {
  path: string;
  contentType: string;
  /** Data rows written: sheet or CSV rows, ItemData elements. */
  rows: number;
}

export class ExportCancelled extends Error {}

/** A text file written in large chunks, waiting for the disk when it falls behind (backpressure). */
export class TextSink {
  private buf = '';
  private readonly stream: fs.WriteStream;
  constructor(file: string) {
    this.stream = fs.createWriteStream(file);
  }
  async write(text: string) {
    this.buf += text;
    if (this.buf.length >= 1 << 16) await this.flush();
  }
  private async flush() {
    if (this.buf === '') return;
    const ok = this.stream.write(this.buf);
    this.buf = '';
    if (!ok) await once(this.stream, 'drain');
  }
  async close() {
    await this.flush();
    this.stream.end();
    await finished(this.stream);
  }
}

type Cell = string | number | null;

export function csvField(value: Cell): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
export const csvLine = (cells: readonly Cell[]) => `${cells.map(csvField).join(',')}\r\n`;
const BOM = '\uFEFF';

function checkCancel(signal: AbortSignal) {
  if (signal.aborted) throw new ExportCancelled();
}

// ---------------------------------------------------------------------------------------------------------------
// Patient columns and row keys

function patientCell(plan: ExportPlan, patient: ExportPatient, name: string, labels: boolean): Cell {
  const value = patient.fields[name] ?? null;
  if (value === null || !labels) return value;
  if (name === 'gender') return GENDER_LABELS[value] ?? value;
  if (name === 'subject_state') return SUBJECT_STATE_LABELS[value] ?? value;
  if (name === 'disease') return plan.diseases.get(value) ?? value;
  return value;
}

const patientCells = (plan: ExportPlan, patient: ExportPatient, labels: boolean) =>
  plan.patientColumns.map((c) => patientCell(plan, patient, c.name, labels));

const cellOf = (v: ExportVariable, record: ExportRecord, patient: ExportPatient, labels: boolean) =>
  exportCell(v, record.values, { labels, shiftDays: patient.shiftDays });

const stageName = (form: PlanForm) => form.stage?.name ?? '';

// ---------------------------------------------------------------------------------------------------------------
// Excel: one sheet per form (written one after the other, so the streamed zip never holds two), the data
// dictionary last.

function sheetNames(forms: readonly PlanForm[]): string[] {
  return excelSheetNames(
    forms.map((f) => f.title),
    { reserved: ['数据字典'], fallback: (index) => `表单${forms[index]!.crfId}` },
  );
}

async function writeExcel(ctx: WriteContext): Promise<WrittenFile> {
  const { plan } = ctx;
  const labels = plan.options.labels;
  const file = path.join(ctx.dir, 'export.xlsx');
  const out = fs.createWriteStream(file);
  // Loaded on the first Excel export rather than at start (≈ 13 MB, 0.6 s).
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const names = sheetNames(plan.forms);
  const unfilled = plan.options.states.includes('notFilled');
  let rows = 0;
  let done = 0;
  const steps = Math.max(1, plan.forms.length * Math.max(1, ctx.totalPatients));
  for (const [index, form] of plan.forms.entries()) {
    const sheet = workbook.addWorksheet(names[index]!);
    sheet
      .addRow([
        ...plan.patientColumns.map((c) => c.title),
        '阶段',
        '记录序号',
        '表单状态',
        ...form.variables.map((v) => v.title + (v.unit ? `（${v.unit}）` : '')),
      ])
      .commit();
    for await (const batch of ctx.batches([form.crfId])) {
      checkCancel(ctx.signal);
      let at = 0;
      for (const patient of batch.patients) {
        const head = patientCells(plan, patient, labels);
        let any = false;
        while (at < batch.records.length && batch.records[at]!.subjectRecordId === patient.subjectRecordId) {
          const record = batch.records[at++]!;
          any = true;
          sheet
            .addRow([
              ...head,
              stageName(form),
              record.instance,
              RECORD_STATE_LABELS[String(record.state)] ?? String(record.state),
              ...form.variables.map((v) => cellOf(v, record, patient, labels)),
            ])
            .commit();
          rows += 1;
        }
        if (!any && unfilled) {
          sheet.addRow([...head, stageName(form), null, '未填']).commit();
          rows += 1;
        }
      }
      done += batch.patients.length;
      await ctx.progress(done / steps, `正在导出 ${form.title}`);
      // Let the zip stream take what the sheet wrote before the next batch is read.
      await new Promise((resolve) => setImmediate(resolve));
    }
    sheet.commit();
  }
  const dict = workbook.addWorksheet('数据字典');
  dict.addRow(['工作表', '变量名', '标题', '类型', '单位', '选项（编码=标签）']).commit();
  for (const c of plan.patientColumns) {
    dict.addRow(['（每个工作表）', c.name, c.title, c.date ? 'date' : 'text']).commit();
  }
  dict.addRow(['（每个工作表）', 'stage', '阶段', 'text']).commit();
  dict.addRow(['（每个工作表）', 'instance', '记录序号（重复表单的第几条记录）', 'number']).commit();
  dict.addRow(['（每个工作表）', 'record_state', '表单状态', 'text', '', '1=已保存；2=已提交']).commit();
  for (const [index, form] of plan.forms.entries()) {
    for (const v of form.variables) {
      dict
        .addRow([
          names[index]!,
          v.name,
          v.title,
          v.kind,
          v.unit,
          v.kind === 'check'
            ? `1=已选；0=未选（${v.choices[0]!.value}=${v.choices[0]!.text}）`
            : v.choices.map((c) => `${c.value}=${c.text}`).join('；'),
        ])
        .commit();
    }
  }
  dict.commit();
  await workbook.commit();
  await finished(out);
  return {
    path: file,
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    rows,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// CSV wide: one row per patient and stage (the stage's single forms), one per record of a repeating form.

interface WideWriter {
  header: string[];
  /** Called for each data row; answers nothing (the caller writes it). */
  rows(batch: PatientBatch, labels: boolean): Generator<Cell[]>;
}

function wideLayout(plan: ExportPlan): WideWriter {
  const offsets = new Map<number, number>();
  let width = plan.patientColumns.length + 3;
  for (const form of plan.forms) {
    offsets.set(form.crfId, width);
    width += form.variables.length;
  }
  const formOf = new Map(plan.forms.map((f) => [f.crfId, f]));
  const stageOrder = new Map(plan.stages.map((s, i) => [s.stageId, i]));
  const header = [
    ...plan.patientColumns.map((c) => c.name),
    'stage',
    'crf',
    'instance',
    ...plan.forms.flatMap((f) => f.variables.map((v) => v.name)),
  ];
  function* rows(batch: PatientBatch, labels: boolean): Generator<Cell[]> {
    let at = 0;
    for (const patient of batch.patients) {
      const head = patientCells(plan, patient, labels);
      const stageRows = new Map<number, Cell[]>();
      const repeats: Array<{ order: number; row: Cell[] }> = [];
      const blank = (stage: string, crf: string | null, instance: number | null): Cell[] => {
        const row: Cell[] = new Array<Cell>(width).fill(null);
        head.forEach((c, i) => (row[i] = c));
        row[head.length] = stage;
        row[head.length + 1] = crf;
        row[head.length + 2] = instance;
        return row;
      };
      while (at < batch.records.length && batch.records[at]!.subjectRecordId === patient.subjectRecordId) {
        const record = batch.records[at++]!;
        const form = formOf.get(record.crfId)!;
        const order = form.stage ? (stageOrder.get(form.stage.stageId) ?? 0) : Number.MAX_SAFE_INTEGER;
        let row: Cell[];
        if (form.repeating) {
          row = blank(stageName(form), labels ? form.title : String(form.crfId), record.instance);
          repeats.push({ order, row });
        } else {
          row = stageRows.get(order) ?? blank(stageName(form), null, null);
          stageRows.set(order, row);
        }
        const offset = offsets.get(form.crfId)!;
        form.variables.forEach((v, i) => (row[offset + i] = cellOf(v, record, patient, labels)));
      }
      const ordered = [...stageRows.entries(), ...repeats.map((r) => [r.order, r.row] as const)]
        .sort((a, b) => a[0] - b[0])
        .map(([, row]) => row);
      if (ordered.length === 0) ordered.push(blank('', null, null));
      yield* ordered;
    }
  }
  return { header, rows };
}

async function writeWideCsv(ctx: WriteContext, file: string, bom: boolean, labels: boolean, track?: WidthTracker) {
  const layout = wideLayout(ctx.plan);
  const sink = new TextSink(file);
  await sink.write((bom ? BOM : '') + csvLine(layout.header));
  let rows = 0;
  let done = 0;
  for await (const batch of ctx.batches(ctx.plan.forms.map((f) => f.crfId))) {
    checkCancel(ctx.signal);
    for (const row of layout.rows(batch, labels)) {
      track?.(row);
      await sink.write(csvLine(row));
      rows += 1;
    }
    done += batch.patients.length;
    await ctx.progress(done / Math.max(1, ctx.totalPatients), `正在导出 ${done}/${ctx.totalPatients} 位患者`);
  }
  await sink.close();
  return { header: layout.header, rows };
}

// ---------------------------------------------------------------------------------------------------------------
// CSV long: one row per item value (a list group's or table's: one per row and column), patient fields first.

export const LONG_HEADER = [
  'subject_code',
  'stage',
  'crf_id',
  'crf',
  'instance',
  'record_state',
  'item',
  'item_title',
  'row',
  'value',
];

const DATE_TYPES = new Set<CrfNode['type']>(['date', 'datetime', 'partialDate']);

function itemValue(
  node: CrfNode,
  value: unknown,
  values: Record<string, unknown>,
  labels: boolean,
  shift: number | null,
) {
  if (isEmptyValue(value)) return null;
  if (node.type === 'date' || node.type === 'datetime' || node.type === 'partialDate') {
    return shift === null ? String(value) : shiftDate(String(value), shift);
  }
  if (node.type === 'checkbox' || node.type === 'multiSelect') {
    return labels ? valueText(node, value, values) : readChoiceList(value).join(',');
  }
  if ((node.type === 'radio' || node.type === 'select') && !labels) return String(value);
  // Numbers and texts as stored (the CRF page's text adds units); uploads and the rest as the page shows them.
  if (!isChoiceType(node.type) && (typeof value === 'string' || typeof value === 'number')) return String(value);
  const text = valueText(node, value, values);
  return text === '' ? null : text;
}

async function writeLongCsv(ctx: WriteContext): Promise<WrittenFile> {
  const { plan } = ctx;
  const labels = plan.options.labels;
  const file = path.join(ctx.dir, 'export.csv');
  const sink = new TextSink(file);
  await sink.write(BOM + csvLine(LONG_HEADER));
  const formOf = new Map(plan.forms.map((f) => [f.crfId, f]));
  // Value items in form order (containers looked into), each with its node; rows of list groups by column.
  const itemsOf = new Map(
    plan.forms.map((f) => {
      const nodes = [...nodesByName(f.definition).values()].filter(
        (n) =>
          n.type !== 'section' && n.type !== 'group' && n.type !== 'card' && n.type !== 'title' && n.type !== 'link',
      );
      return [
        f.crfId,
        nodes
          .filter((n) => !nodes.some((p) => isRowType(p.type) && p.children.includes(n)))
          .map((node) => ({
            node,
            // The item's columns, quoted once; null where a number is not written as stored (a choice, a date).
            named:
              isChoiceType(node.type) || isRowType(node.type) || DATE_TYPES.has(node.type)
                ? null
                : `,${csvField(node.name)},${csvField(node.title || node.name)},,`,
          })),
      ];
    }),
  );
  let rows = 0;
  let done = 0;
  for await (const batch of ctx.batches(plan.forms.map((f) => f.crfId))) {
    checkCancel(ctx.signal);
    let at = 0;
    for (const patient of batch.patients) {
      const code = patient.code;
      for (const c of plan.patientColumns) {
        if (c.name === 'subject_code') continue;
        const v = patientCell(plan, patient, c.name, labels);
        if (v === null) continue;
        await sink.write(csvLine([code, '', '', '患者信息', '', '', c.name, c.title, '', v]));
        rows += 1;
      }
      while (at < batch.records.length && batch.records[at]!.subjectRecordId === patient.subjectRecordId) {
        const record = batch.records[at++]!;
        const form = formOf.get(record.crfId)!;
        const state = labels ? (RECORD_STATE_LABELS[String(record.state)] ?? record.state) : record.state;
        const lead = csvLine([code, stageName(form), form.crfId, form.title, record.instance, state]).slice(0, -2);
        let chunk = '';
        for (const { node, named } of itemsOf.get(form.crfId)!) {
          const value = record.values[node.name];
          // The common case first: a number as stored needs neither checks nor quoting.
          if (typeof value === 'number' && named) {
            chunk += `${lead}${named}${value}\r\n`;
            rows += 1;
            continue;
          }
          if (isRowType(node.type)) {
            readRows(value).forEach((row, i) => {
              for (const child of node.children) {
                if (!child.name) continue;
                const v = itemValue(child, row[child.name], row, labels, patient.shiftDays);
                if (v === null) continue;
                chunk += `${lead},${csvField(`${node.name}.${child.name}`)},${csvField(child.title || child.name)},${i + 1},${csvField(v)}\r\n`;
                rows += 1;
              }
            });
            continue;
          }
          const v = itemValue(node, value, record.values, labels, patient.shiftDays);
          if (v === null) continue;
          chunk += `${lead}${named ?? `,${csvField(node.name)},${csvField(node.title || node.name)},,`}${csvField(v)}\r\n`;
          rows += 1;
        }
        await sink.write(chunk);
      }
    }
    done += batch.patients.length;
    await ctx.progress(done / Math.max(1, ctx.totalPatients), `正在导出 ${done}/${ctx.totalPatients} 位患者`);
  }
  await sink.close();
  return { path: file, contentType: 'text/csv; charset=utf-8', rows };
}

// ---------------------------------------------------------------------------------------------------------------
// The statistics packages: the wide CSV (codes, no BOM) with SPSS syntax, or a Stata .do and an R script.

type StatType = 'string' | 'number' | 'date' | 'datetime';

export interface StatVariable {
  name: string;
  label: string;
  type: StatType;
  /** Value labels: code → label (numeric codes when `numeric`). */
  values: Array<[string, string]>;
  numeric: boolean;
}

type WidthTracker = (row: Cell[]) => void;

/** The wide file's columns as statistics variables, in header order. */
export function statVariables(plan: ExportPlan): StatVariable[] {
  const out: StatVariable[] = plan.patientColumns.map((c) => {
    if (c.name === 'gender') {
      return { name: c.name, label: c.title, type: 'number', values: Object.entries(GENDER_LABELS), numeric: true };
    }
    if (c.name === 'subject_state') {
      return {
        name: c.name,
        label: c.title,
        type: 'number',
        values: Object.entries(SUBJECT_STATE_LABELS),
        numeric: true,
      };
    }
    if (c.name === 'disease') {
      return { name: c.name, label: c.title, type: 'string', values: [...plan.diseases], numeric: false };
    }
    return { name: c.name, label: c.title, type: c.date ? 'date' : 'string', values: [], numeric: false };
  });
  out.push(
    { name: 'stage', label: '阶段', type: 'string', values: [], numeric: false },
    {
      name: 'crf',
      label: '重复表单（编号）',
      type: 'number',
      values: plan.forms.filter((f) => f.repeating).map((f) => [String(f.crfId), f.title]),
      numeric: true,
    },
    { name: 'instance', label: '记录序号', type: 'number', values: [], numeric: false },
  );
  for (const form of plan.forms) {
    for (const v of form.variables) {
      const label = v.unit ? `${v.title}（${v.unit}）` : v.title;
      switch (v.kind) {
        case 'check':
          out.push({
            name: v.name,
            label,
            type: 'number',
            values: [
              ['1', '已选'],
              ['0', '未选'],
            ],
            numeric: true,
          });
          break;
        case 'choice': {
          const numeric = numericCodes(v.choices);
          out.push({
            name: v.name,
            label,
            type: numeric ? 'number' : 'string',
            values: v.choices.map((c) => [c.value, c.text]),
            numeric,
          });
          break;
        }
        case 'number':
          out.push({ name: v.name, label, type: 'number', values: [], numeric: false });
          break;
        case 'date':
          out.push({ name: v.name, label, type: 'date', values: [], numeric: false });
          break;
        // Date-times and partial dates stay text: SPSS and Stata read them as strings to convert as needed.
        case 'datetime':
        case 'partialDate':
        case 'text':
          out.push({ name: v.name, label, type: 'string', values: [], numeric: false });
      }
    }
  }
  return out;
}

const spssText = (s: string) => `'${s.replace(/'/g, "''").replace(/[\r\n]+/g, ' ')}'`;

/** SPSS syntax reading data.csv: GET DATA with every variable's format, VARIABLE LABELS, VALUE LABELS. */
export function spssSyntax(vars: readonly StatVariable[], widths: ReadonlyMap<string, number>): string {
  const lines = [
    '* Encoding: UTF-8.',
    '* 数据导出：在 data.csv 所在的文件夹中运行（或把 FILE 改为完整路径）.',
    'SET UNICODE=ON.',
    "GET DATA /TYPE=TXT /FILE='data.csv' /ENCODING='UTF8' /DELCASE=LINE /DELIMITERS=\",\" /QUALIFIER='\"'",
    '  /ARRANGEMENT=DELIMITED /FIRSTCASE=2 /VARIABLES=',
  ];
  for (const v of vars) {
    const format =
      v.type === 'number'
        ? v.numeric
          ? 'F8.0'
          : 'F16.4'
        : v.type === 'date'
          ? 'SDATE10'
          : `A${Math.max(1, Math.min(32767, widths.get(v.name) ?? 1))}`;
    lines.push(`  ${v.name} ${format}`);
  }
  lines.push('.', 'VARIABLE LABELS');
  lines.push(vars.map((v) => `  ${v.name} ${spssText(v.label)}`).join('\n') + '.');
  const labelled = vars.filter((v) => v.values.length > 0);
  if (labelled.length > 0) {
    lines.push('VALUE LABELS');
    lines.push(
      labelled
        .map(
          (v) =>
            `  ${v.name} ${v.values.map(([code, label]) => `${v.numeric ? code : spssText(code)} ${spssText(label)}`).join(' ')}`,
        )
        .join('\n  /') + '.',
    );
  }
  const dates = vars.filter((v) => v.type === 'date');
  if (dates.length > 0) lines.push(`FORMATS ${dates.map((v) => v.name).join(' ')} (SDATE10).`);
  lines.push('EXECUTE.', '');
  return lines.join('\n');
}

const stataText = (s: string) =>
  `"${s
    .replace(/"/g, "'")
    .replace(/[\r\n]+/g, ' ')
    .slice(0, 80)}"`;

/** A Stata do-file: import with string columns kept as strings, dates converted, labels defined and attached. */
export function stataDo(vars: readonly StatVariable[]): string {
  const strings = vars.map((v, i) => (v.type === 'number' ? null : i + 1)).filter((i): i is number => i !== null);
  const lines = [
    '* 数据导出：在 data.csv 所在的文件夹中运行 do labels.do',
    `import delimited using "data.csv", varnames(1) encoding("utf-8") case(preserve) clear${strings.length > 0 ? ` stringcols(${strings.join(' ')})` : ''}`,
  ];
  for (const v of vars.filter((x) => x.type === 'date')) {
    lines.push(`generate double _d = date(${v.name}, "YMD")`, `format _d %td`, `drop ${v.name}`, `rename _d ${v.name}`);
  }
  vars.forEach((v, i) => {
    lines.push(`label variable ${v.name} ${stataText(v.label)}`);
    if (v.values.length > 0 && v.numeric) {
      const name = `lbl${i + 1}`;
      lines.push(
        `label define ${name} ${v.values.map(([code, label]) => `${code} ${stataText(label)}`).join(' ')}, replace`,
      );
      lines.push(`label values ${v.name} ${name}`);
    } else if (v.values.length > 0) {
      // Stata labels numbers only: a text-coded choice keeps its codes; its labels are written as a note.
      lines.push(
        `notes ${v.name}: ${v.values
          .map(([code, label]) => `${code}=${label}`)
          .join('; ')
          .replace(/[\r\n"]/g, ' ')}`,
      );
    }
  });
  lines.push('');
  return lines.join('\n');
}

const rText = (s: string) => JSON.stringify(s);

/** An R script: read.csv with text columns as character, dates as Date, choices as factors with their levels. */
export function rScript(vars: readonly StatVariable[]): string {
  const classes = vars
    .filter((v) => v.type !== 'number')
    .map((v) => `${rText(v.name)} = "character"`)
    .join(', ');
  const lines = [
    '# 数据导出：在 data.csv 所在的文件夹中 source("labels.R")',
    `data <- read.csv("data.csv", fileEncoding = "UTF-8", na.strings = "", check.names = FALSE, colClasses = c(${classes}))`,
  ];
  for (const v of vars) {
    const col = `data[[${rText(v.name)}]]`;
    if (v.type === 'date') lines.push(`${col} <- as.Date(${col})`);
    if (v.values.length > 0) {
      const levels = v.values.map(([code]) => (v.numeric ? code : rText(code))).join(', ');
      const labels = v.values.map(([, label]) => rText(label)).join(', ');
      lines.push(`${col} <- factor(${col}, levels = c(${levels}), labels = c(${labels}))`);
    }
    lines.push(`attr(${col}, "label") <- ${rText(v.label)}`);
  }
  lines.push('');
  return lines.join('\n');
}

async function zipFiles(target: string, files: Array<{ name: string; path: string }>) {
  const out = fs.createWriteStream(target);
  const { default: archiver } = await import('archiver');
  const zip = archiver('zip', { zlib: { level: 6 } });
  const done = finished(out);
  zip.pipe(out);
  for (const f of files) zip.append(fs.createReadStream(f.path), { name: f.name });
  await zip.finalize();
  await done;
}

async function writeStatistics(ctx: WriteContext, kind: 'spss' | 'stata'): Promise<WrittenFile> {
  const vars = statVariables(ctx.plan);
  const widths = new Map<string, number>();
  const stringAt = vars.map((v, i) => (v.type === 'number' ? -1 : i)).filter((i) => i >= 0);
  const track: WidthTracker = (row) => {
    for (const i of stringAt) {
      const cell = row[i];
      if (cell === null || cell === undefined) continue;
      const bytes = Buffer.byteLength(String(cell));
      const name = vars[i]!.name;
      if (bytes > (widths.get(name) ?? 0)) widths.set(name, bytes);
    }
  };
  const data = path.join(ctx.dir, 'data.csv');
  const { rows } = await writeWideCsv(ctx, data, false, false, track);
  const files = [{ name: 'data.csv', path: data }];
  if (kind === 'spss') {
    const sps = path.join(ctx.dir, 'syntax.sps');
    await fs.promises.writeFile(sps, spssSyntax(vars, widths));
    files.push({ name: 'syntax.sps', path: sps });
  } else {
    const doFile = path.join(ctx.dir, 'labels.do');
    const rFile = path.join(ctx.dir, 'labels.R');
    await fs.promises.writeFile(doFile, stataDo(vars));
    await fs.promises.writeFile(rFile, rScript(vars));
    files.push({ name: 'labels.do', path: doFile }, { name: 'labels.R', path: rFile });
  }
  const target = path.join(ctx.dir, 'export.zip');
  await zipFiles(target, files);
  return { path: target, contentType: 'application/zip', rows };
}

// ---------------------------------------------------------------------------------------------------------------
// CDISC ODM 1.3.2: the forms' metadata (core's exporter, with the stages as study events), then ClinicalData one
// SubjectData per patient. Values as stored: codes, ISO dates (shifted when asked), a multiple choice as codes
// joined by commas.

const UNSCHEDULED_EVENT = 'SE.UNSCHEDULED';

function odmValue(node: CrfNode | undefined, value: unknown, shift: number | null): string | null {
  if (isEmptyValue(value)) return null;
  if (node && (node.type === 'date' || node.type === 'datetime' || node.type === 'partialDate') && shift !== null) {
    return shiftDate(String(value), shift);
  }
  if (node && (node.type === 'checkbox' || node.type === 'multiSelect')) return readChoiceList(value).join(',');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

async function writeOdm(ctx: WriteContext): Promise<WrittenFile> {
  const { plan } = ctx;
  const eventOid = (form: PlanForm) => (form.stage ? `SE.${form.stage.stageId}` : UNSCHEDULED_EVENT);
  const events = plan.stages
    .map((s) => ({
      oid: `SE.${s.stageId}`,
      name: s.name,
      formIndexes: plan.forms.flatMap((f, i) => (f.stage?.stageId === s.stageId ? [i] : [])),
    }))
    .filter((e) => e.formIndexes.length > 0);
  const unscheduled = plan.forms.flatMap((f, i) => (f.stage ? [] : [i]));
  if (unscheduled.length > 0) events.push({ oid: UNSCHEDULED_EVENT, name: '未分阶段', formIndexes: unscheduled });
  const meta = odmMetadata(
    plan.forms.map((f) => f.definition),
    {
      studyOid: `S.${plan.studyId}`,
      studyName: ctx.studyName,
      now: ctx.now,
      events,
      repeatingForms: new Set(plan.forms.flatMap((f, i) => (f.repeating ? [i] : []))),
    },
  );
  const file = path.join(ctx.dir, 'export.xml');
  const sink = new TextSink(file);
  await sink.write(`${meta.head}\n${odmClinicalDataOpen(meta.studyOid, meta.metaDataVersionOid)}\n`);
  const formIndex = new Map(plan.forms.map((f, i) => [f.crfId, i]));
  const nodes = new Map(plan.forms.map((f) => [f.crfId, nodesByName(f.definition)]));
  let rows = 0;
  let done = 0;
  for await (const batch of ctx.batches(plan.forms.map((f) => f.crfId))) {
    checkCancel(ctx.signal);
    let at = 0;
    for (const patient of batch.patients) {
      const byEvent = new Map<string, OdmFormData[]>();
      while (at < batch.records.length && batch.records[at]!.subjectRecordId === patient.subjectRecordId) {
        const record = batch.records[at++]!;
        const i = formIndex.get(record.crfId)!;
        const form = plan.forms[i]!;
        const layout = meta.layouts[i]!;
        const formNodes = nodes.get(form.crfId)!;
        const groups = new Map<string, OdmItemGroupData & { items: Array<{ itemOid: string; value: string }> }>();
        for (const [name, place] of layout.items) {
          const value = odmValue(formNodes.get(name), record.values[name], patient.shiftDays);
          if (value === null) continue;
          let group = groups.get(place.groupOid);
          if (!group) groups.set(place.groupOid, (group = { groupOid: place.groupOid, items: [] }));
          group.items.push({ itemOid: place.itemOid, value });
          rows += 1;
        }
        const rowGroups: OdmItemGroupData[] = [];
        for (const [name, rowGroup] of layout.rowGroups) {
          const rowNode = formNodes.get(name);
          readRows(record.values[name]).forEach((row, r) => {
            const items: Array<{ itemOid: string; value: string }> = [];
            for (const [child, itemOid] of rowGroup.items) {
              const node = rowNode?.children.find((c) => c.name === child);
              const value = odmValue(node, row[child], patient.shiftDays);
              if (value === null) continue;
              items.push({ itemOid, value });
              rows += 1;
            }
            if (items.length > 0) rowGroups.push({ groupOid: rowGroup.groupOid, repeatKey: r + 1, items });
          });
        }
        const formData: OdmFormData = {
          formOid: layout.formOid,
          repeatKey: form.repeating ? record.instance : undefined,
          groups: [...groups.values(), ...rowGroups],
        };
        const key = eventOid(form);
        const list = byEvent.get(key) ?? [];
        list.push(formData);
        byEvent.set(key, list);
      }
      const eventData: OdmEventData[] = events
        .filter((e) => byEvent.has(e.oid))
        .map((e) => ({ eventOid: e.oid, forms: byEvent.get(e.oid)! }));
      await sink.write(odmSubjectData(patient.code, eventData));
    }
    done += batch.patients.length;
    await ctx.progress(done / Math.max(1, ctx.totalPatients), `正在导出 ${done}/${ctx.totalPatients} 位患者`);
  }
  await sink.write(ODM_CLINICAL_DATA_CLOSE);
  await sink.close();
  return { path: file, contentType: 'application/xml; charset=utf-8', rows };
}

async function writeRedcap(ctx: WriteContext): Promise<WrittenFile> {
  if (!ctx.redcap) throw new Error('REDCap mapping not available');
  const file = path.join(ctx.dir, 'export.csv');
  const sink = new TextSink(file);
  const rows = await ctx.redcap(ctx, sink);
  await sink.close();
  return { path: file, contentType: 'text/csv; charset=utf-8', rows };
}

/** Writes the export file of one format into ctx.dir and answers where it is. */
export async function writeExport(format: ExportFormat, ctx: WriteContext): Promise<WrittenFile> {
  switch (format) {
    case 'excel':
      return writeExcel(ctx);
    case 'csvWide': {
      const file = path.join(ctx.dir, 'export.csv');
      const { rows } = await writeWideCsv(ctx, file, true, ctx.plan.options.labels);
      return { path: file, contentType: 'text/csv; charset=utf-8', rows };
    }
    case 'csvLong':
      return writeLongCsv(ctx);
    case 'spss':
      return writeStatistics(ctx, 'spss');
    case 'stata':
      return writeStatistics(ctx, 'stata');
    case 'odm':
      return writeOdm(ctx);
    case 'redcap':
      return writeRedcap(ctx);
  }
}
