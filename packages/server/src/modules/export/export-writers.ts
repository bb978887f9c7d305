import path from 'node:path';
import type { ExportFormat } from '@ecrf/core';
import { writeLongCsv, writeWideCsv } from './export-csv.js';
import { writeExcel } from './export-excel.js';
import { writeOdm } from './export-odm.js';
import { writeStatistics } from './export-statistics.js';
import { testNoticeLine, type WriteContext, type WrittenFile } from './export-writer-common.js';

// One writer per format, each in its own file; what they share (the context, the sink, CSV quoting, the patient
// columns) is in export-writer-common.ts.

async function writeRedcap(ctx: WriteContext): Promise<WrittenFile> {
  if (!ctx.redcap) throw new Error('REDCap mapping not available');
  return ctx.redcap(ctx);
}

/** Writes the export file of one format into ctx.dir and answers where it is. */
export async function writeExport(format: ExportFormat, ctx: WriteContext): Promise<WrittenFile> {
  switch (format) {
    case 'excel':
      return writeExcel(ctx);
    case 'csvWide': {
      const file = path.join(ctx.dir, 'export.csv');
      const { rows } = await writeWideCsv(ctx, file, true, ctx.plan.options.labels, undefined, testNoticeLine(ctx));
      return { path: file, contentType: 'text/csv; charset=utf-8', rows };
    }
    case 'csvLong':
      return writeLongCsv(ctx);
    case 'spss':
    case 'stata':
    case 'spssSyntax':
    case 'stataSyntax':
      return writeStatistics(ctx, format);
    case 'odm':
      return writeOdm(ctx);
    case 'redcap':
      return writeRedcap(ctx);
  }
}
