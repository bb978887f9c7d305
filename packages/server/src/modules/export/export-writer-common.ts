import fs from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { exportCell, TEST_EXPORT_NOTICE, type ExportVariable } from '@ecrf/core';
import {
  GENDER_LABELS,
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
  /**
   * The study is in 测试: the file is marked as test data (a first row in CSV and Excel, the format's own label or a
   * comment in the others; the file name says it too).
   */
  test: boolean;
  now: Date;
  /** A fresh pass over the patients (key order) with their records of these forms. */
  batches: (crfIds: readonly number[]) => AsyncGenerator<PatientBatch>;
  totalPatients: number;
  /** 0–1 of the work done; the caller turns it into the job's progress. */
  progress: (fraction: number, message: string) => Promise<void>;
  signal: AbortSignal;
  /** A private temporary folder for intermediate files. */
  dir: string;
  /** Writes the REDCap import files (the REDCap module's own mapping, export-redcap.ts), when that format is asked for. */
  redcap?: (ctx: WriteContext) => Promise<WrittenFile>;
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

export type Cell = string | number | null;

export function csvField(value: Cell): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
export const csvLine = (cells: readonly Cell[]) => `${cells.map(csvField).join(',')}\r\n`;
export const BOM = '\uFEFF';

/** The first row of a test export's CSV (after the byte-order mark), above the header; nothing in production. */
export const testNoticeLine = (ctx: Pick<WriteContext, 'test'>) => (ctx.test ? csvLine([TEST_EXPORT_NOTICE]) : '');

export function checkCancel(signal: AbortSignal) {
  if (signal.aborted) throw new ExportCancelled();
}

/**
 * A pass over the patients' batches with their records of every exported form, for a file of all of them: a
 * cancel stops it, each batch done is progress.
 */
export async function* patientPass(ctx: WriteContext): AsyncGenerator<PatientBatch> {
  let done = 0;
  for await (const batch of ctx.batches(ctx.plan.forms.map((f) => f.crfId))) {
    checkCancel(ctx.signal);
    yield batch;
    done += batch.patients.length;
    await ctx.progress(done / Math.max(1, ctx.totalPatients), `正在导出 ${done}/${ctx.totalPatients} 位患者`);
  }
}

/** Each patient of a batch with its records (a batch holds its records in patient order). */
export function* patientsWithRecords(
  batch: PatientBatch,
): Generator<{ patient: ExportPatient; records: ExportRecord[] }> {
  let at = 0;
  for (const patient of batch.patients) {
    const from = at;
    while (at < batch.records.length && batch.records[at]!.subjectRecordId === patient.subjectRecordId) at += 1;
    yield { patient, records: batch.records.slice(from, at) };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Patient columns and row keys

export function patientCell(plan: ExportPlan, patient: ExportPatient, name: string, labels: boolean): Cell {
  const value = patient.fields[name] ?? null;
  if (value === null || !labels) return value;
  if (name === 'gender') return GENDER_LABELS[value] ?? value;
  if (name === 'subject_state') return SUBJECT_STATE_LABELS[value] ?? value;
  if (name === 'disease') return plan.diseases.get(value) ?? value;
  return value;
}

export const patientCells = (plan: ExportPlan, patient: ExportPatient, labels: boolean) =>
  plan.patientColumns.map((c) => patientCell(plan, patient, c.name, labels));

export const cellOf = (v: ExportVariable, record: ExportRecord, patient: ExportPatient, labels: boolean) =>
  exportCell(v, record.values, { labels, shiftDays: patient.shiftDays, fileNames: record.fileNames });

export const stageName = (form: PlanForm) => form.stage?.name ?? '';
