import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { shiftDate } from '@ecrf/core';
import { redcapValueFits } from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import {
  EVENT,
  loadProject,
  RECORD_ID,
  REPEAT_INSTANCE,
  REPEAT_INSTRUMENT,
  selectFields,
  type Field,
} from '../redcap/redcap-project.js';
import { exportRecords } from '../redcap/redcap-records-export.js';
import { redcapSideFiles, type LeftOut } from './export-redcap-files.js';
import {
  BOM,
  csvLine,
  ExportCancelled,
  TextSink,
  type WriteContext,
  type WrittenFile,
} from './export-writer-common.js';

const DATE_TYPES = new Set(['date', 'datetime', 'partialDate']);

/**
 * The REDCap import files, zipped: `records.csv` through the REDCap API's own mapping (modules/redcap: the same
 * dictionary, variable names, events on every row of a longitudinal project, repeating instruments and
 * `field___code` columns as `content=record&type=flat`), fed one batch of patients at a time, so a file made here
 * and an API export of the same data re-import alike; beside it the data dictionary of exactly those fields, the
 * events, their instruments and the repeating ones, the choice codes REDCap made legal, and a README.
 *
 * Always choice codes (REDCap's import refuses labels; CODES_ONLY_FORMATS). Identifier items go out only when asked
 * (and allowed); dates are shifted like the other formats; the forms, stages and states chosen narrow it as they do
 * the other formats (a patient without a record in a chosen state stays a row of its own, as the REDCap API answers
 * a record with nothing entered). A value REDCap would refuse for its field's validation is left out of the records
 * and listed in values_left_out.csv, so the file imports whole.
 */
export function redcapWriter(ctx: AppContext, user: CurrentUser, access: StudyAccess) {
  return async (wctx: WriteContext): Promise<WrittenFile> => {
    const { plan } = wctx;
    // The plan's definitions: a form's removed items that hold values are fields too (export-removed-items.ts).
    const project = await loadProject(
      ctx,
      { tokenId: 0, user, access },
      new Map(plan.forms.map((f) => [f.crfId, f.definition])),
    );
    const forms = new Set(
      project.instruments.filter((i) => plan.forms.some((f) => f.crfId === i.crfId)).map((i) => i.form),
    );
    const selected =
      forms.size > 0
        ? selectFields(project, [], [...forms])
        : new Set(project.fields.filter((f) => f.row.variable === RECORD_ID));
    if (!plan.options.identifiers) {
      for (const f of [...selected]) if (f.row.identifier === 'y') selected.delete(f);
    }
    const recordsFile = path.join(wctx.dir, 'records.csv');
    const sink = new TextSink(recordsFile);
    await sink.write(BOM);
    const leftOut: LeftOut[] = [];
    let header: string[] | null = null;
    let rows = 0;
    let done = 0;
    // The batches carry the records of the exported forms that are in a chosen state (export-source.ts): only
    // those go out, through the REDCap mapping, which reads the patients' records itself.
    for await (const batch of wctx.batches(plan.forms.map((f) => f.crfId))) {
      // A cancel stops here, as in the other writers: the half-written file is never kept as a result.
      if (wctx.signal.aborted) throw new ExportCancelled();
      const codes = batch.patients.map((p) => p.code);
      if (codes.length === 0) continue;
      const shiftOf = new Map(batch.patients.map((p) => [p.code, p.shiftDays]));
      const out = await exportRecords(ctx, project, selected, {
        records: codes,
        label: false,
        recordIds: new Set(batch.records.map((r) => r.id)),
      });
      if (!header) {
        header = out.columns;
        await sink.write(csvLine(header));
      }
      const validated = header.flatMap((c) => {
        const field = project.byVariable.get(c);
        return field && field.row.type === 'text' && field.row.validation ? [field] : [];
      });
      const dateColumns = header.filter((c) => {
        const node = project.byVariable.get(c)?.node;
        return node !== undefined && DATE_TYPES.has(node.type);
      });
      for (const row of out.rows) {
        const shift = shiftOf.get(row[RECORD_ID] ?? '') ?? null;
        // A date that may be partly unknown cannot be shifted without keeping its true year or month: withheld.
        if (shift !== null) for (const c of dateColumns) if (row[c]) row[c] = shiftDate(row[c], shift) ?? '';
        for (const f of validated) leaveOutMisfit(row, f, leftOut);
        await sink.write(csvLine(header.map((c) => row[c] ?? '')));
        rows += 1;
      }
      done += batch.patients.length;
      await wctx.progress(done / Math.max(1, wctx.totalPatients), `正在导出 ${done}/${wctx.totalPatients} 位患者`);
    }
    if (!header) await sink.write(csvLine([RECORD_ID]));
    await sink.close();
    const fields = project.fields.filter((f) => f.row.variable === RECORD_ID || selected.has(f));
    const side = redcapSideFiles({
      project,
      fields,
      forms,
      leftOut,
      labelsAsked: plan.options.labels,
      test: wctx.test,
    });
    const target = path.join(wctx.dir, 'export.zip');
    await zip(target, [{ name: 'records.csv', path: recordsFile }, ...side]);
    return { path: target, contentType: 'application/zip', rows };
  };
}

/** A value REDCap's import would refuse for the field's validation: blanked in the row and noted. */
function leaveOutMisfit(row: Record<string, string>, field: Field, leftOut: LeftOut[]) {
  const variable = field.row.variable;
  const value = row[variable] ?? '';
  if (redcapValueFits(field.row.validation, value)) return;
  leftOut.push({
    record: row[RECORD_ID] ?? '',
    event: row[EVENT] ?? '',
    instrument: row[REPEAT_INSTRUMENT] ?? '',
    instance: row[REPEAT_INSTANCE] ?? '',
    variable,
    value,
    validation: field.row.validation,
  });
  row[variable] = '';
}

async function zip(target: string, files: Array<{ name: string; path?: string; text?: string }>) {
  const out = fs.createWriteStream(target);
  const { default: archiver } = await import('archiver');
  const archive = archiver('zip', { zlib: { level: 6 } });
  const written = finished(out);
  archive.pipe(out);
  for (const f of files) {
    archive.append(f.path ? fs.createReadStream(f.path) : Buffer.from(f.text ?? '', 'utf8'), { name: f.name });
  }
  await archive.finalize();
  await written;
}
