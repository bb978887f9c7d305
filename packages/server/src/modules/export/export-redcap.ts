import { shiftDate } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { loadProject, RECORD_ID, selectFields } from '../redcap/redcap-project.js';
import { exportRecords } from '../redcap/redcap-records-export.js';
import { csvLine, ExportCancelled, type TextSink, type WriteContext } from './export-writer-common.js';

const DATE_TYPES = new Set(['date', 'datetime', 'partialDate']);

/**
 * The REDCap flat CSV through the REDCap API's own mapping (modules/redcap: the same dictionary, variable names,
 * events, repeating instruments and `field___code` columns as `content=record&type=flat`), fed one batch of
 * patients at a time, so a file made here and an API export of the same data are the same and re-import alike.
 * Identifier items go out only when asked (and allowed); dates are shifted like the other formats; the forms, stages
 * and states chosen narrow it as they do the other formats (a patient without a record in a chosen state stays a
 * row of its own, as the REDCap API answers a record with nothing entered).
 */
export function redcapWriter(ctx: AppContext, user: CurrentUser, access: StudyAccess) {
  return async (wctx: WriteContext, sink: TextSink): Promise<number> => {
    const { plan } = wctx;
    const project = await loadProject(ctx, { tokenId: 0, user, access });
    const forms = project.instruments.filter((i) => plan.forms.some((f) => f.crfId === i.crfId)).map((i) => i.form);
    const selected =
      forms.length > 0
        ? selectFields(project, [], forms)
        : new Set(project.fields.filter((f) => f.row.variable === RECORD_ID));
    if (!plan.options.identifiers) {
      for (const f of [...selected]) if (f.row.identifier === 'y') selected.delete(f);
    }
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
        label: plan.options.labels,
        recordIds: new Set(batch.records.map((r) => r.id)),
      });
      if (!header) {
        header = out.columns;
        await sink.write(csvLine(header));
      }
      const dateColumns = header.filter((c) => {
        const node = project.byVariable.get(c)?.node;
        return node !== undefined && DATE_TYPES.has(node.type);
      });
      for (const row of out.rows) {
        const shift = shiftOf.get(row[RECORD_ID] ?? '') ?? null;
        if (shift !== null) {
          for (const c of dateColumns) if (row[c]) row[c] = shiftDate(row[c], shift) ?? '';
        }
        await sink.write(csvLine(header.map((c) => row[c] ?? '')));
        rows += 1;
      }
      done += batch.patients.length;
      await wctx.progress(done / Math.max(1, wctx.totalPatients), `正在导出 ${done}/${wctx.totalPatients} 位患者`);
    }
    if (!header) await sink.write(csvLine(['record_id']));
    return rows;
  };
}
