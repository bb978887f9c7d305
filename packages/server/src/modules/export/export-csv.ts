import path from 'node:path';
import {
  additionKey,
  additionTitle,
  hasAddition,
  isChoiceType,
  isEmptyValue,
  isRowType,
  isUploadItem,
  missingKey,
  nodesByName,
  overrideInUnit,
  readChoiceList,
  readRows,
  shiftDate,
  unitKey,
  unitsOf,
  valueText,
  type CrfNode,
  type UsedRange,
} from '@ecrf/core';
import { RECORD_STATE_LABELS, type ExportPlan, type ExportRecord, type PatientBatch } from './export-source.js';
import {
  BOM,
  cellOf,
  csvField,
  csvLine,
  patientCell,
  patientCells,
  patientPass,
  patientsWithRecords,
  stageName,
  testNoticeLine,
  TextSink,
  type Cell,
  type WriteContext,
  type WrittenFile,
} from './export-writer-common.js';

/**
 * Sees every wide row before it is written and may rewrite its cells (the statistics zips measure their text
 * columns; the SPSS one writes line breaks as spaces).
 */
export type RowHook = (row: Cell[]) => void;

// ---------------------------------------------------------------------------------------------------------------
// CSV wide: one row per patient and stage (the stage's single forms), one per record of a repeating form.

export interface WideWriter {
  header: string[];
  /** Called for each data row; answers nothing (the caller writes it). */
  rows(batch: PatientBatch, labels: boolean): Generator<Cell[]>;
}

export function wideLayout(plan: ExportPlan): WideWriter {
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
    for (const { patient, records } of patientsWithRecords(batch)) {
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
      for (const record of records) {
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

/**
 * The wide CSV. `notice`: a test export's first row above the header (the CSV format; the statistics zips read
 * their data.csv by its header in line 1 and say 测试数据 in their syntax instead).
 */
export async function writeWideCsv(
  ctx: WriteContext,
  file: string,
  bom: boolean,
  labels: boolean,
  track?: RowHook,
  notice = '',
) {
  const layout = wideLayout(ctx.plan);
  const sink = new TextSink(file);
  await sink.write((bom ? BOM : '') + notice + csvLine(layout.header));
  let rows = 0;
  for await (const batch of patientPass(ctx)) {
    for (const row of layout.rows(batch, labels)) {
      track?.(row);
      await sink.write(csvLine(row));
      rows += 1;
    }
  }
  await sink.close();
  return { header: layout.header, rows };
}

// ---------------------------------------------------------------------------------------------------------------
// CSV long: one row per item value (a list group's or table's: one per row and column), patient fields first; a
// value judged by a reference range carries it in range_lower/range_upper/range_unit/range_source (empty otherwise).

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
  'range_lower',
  'range_upper',
  'range_unit',
  'range_source',
];

/** range_source: where the range a value was judged by came from (the site's table, or the item's own in the CRF). */
const RANGE_SOURCE: Record<UsedRange['source'], { code: string; label: string }> = {
  site: { code: 'site', label: '分中心' },
  item: { code: 'item', label: '项目' },
};

/** The row's four trailing range cells (each after a comma); empty for an item no range judged. */
const NO_RANGE = ',,,,';

/**
 * 参考范围 (issue 37): the range an item's value was judged by at the record's last save, in the unit the value was
 * entered in (a site range in another unit converted as the ↑/↓ was; one that does not convert is left blank).
 */
function rangeCells(node: CrfNode, record: ExportRecord, labels: boolean): string {
  const r = record.labRanges?.[node.name] as Partial<UsedRange> | null | undefined;
  if (!r) return NO_RANGE;
  const chosen = record.values[unitKey(node.name)];
  const unit = (typeof chosen === 'string' && chosen) || unitsOf(node.option)[0] || r.unit || '';
  const range = overrideInUnit(
    { lower: r.lower ?? null, upper: r.upper ?? null, unit: r.unit ?? null },
    node.option,
    unit,
  );
  if (!range || (range.min === null && range.max === null)) return NO_RANGE;
  const source = r.source ? RANGE_SOURCE[r.source] : undefined;
  return `,${range.min ?? ''},${range.max ?? ''},${csvField(unit)},${source ? (labels ? source.label : source.code) : ''}`;
}

const DATE_TYPES = new Set<CrfNode['type']>(['date', 'datetime', 'partialDate']);

function itemValue(
  node: CrfNode,
  value: unknown,
  values: Record<string, unknown>,
  labels: boolean,
  shift: number | null,
  fileNames: ReadonlyMap<string, string>,
) {
  if (isEmptyValue(value)) return null;
  // An upload by its files' names, never their storage keys.
  if (isUploadItem(node)) return valueText(node, value, values, { fileNames }) || null;
  if (node.type === 'date' || node.type === 'datetime' || node.type === 'partialDate') {
    return shift === null ? String(value) : shiftDate(String(value), shift);
  }
  if (node.type === 'checkbox' || node.type === 'multiSelect') {
    return labels ? valueText(node, value, values) : readChoiceList(value).join(',');
  }
  if ((node.type === 'radio' || node.type === 'select') && !labels) return String(value);
  // Numbers and texts as stored (the CRF page's text adds units); uploads and the rest as the page shows them.
  if (!isChoiceType(node.type) && (typeof value === 'string' || typeof value === 'number')) return String(value);
  const text = valueText(node, value, values, { fileNames });
  return text === '' ? null : text;
}

/** The text typed beside a choice's option (其他（请注明）): a row of its own, item `<item>_addition`. */
const additionText = (node: CrfNode, values: Record<string, unknown>) => {
  if (!hasAddition(node)) return null;
  const text = values[additionKey(node.name)];
  return typeof text === 'string' && text !== '' ? text : null;
};

export async function writeLongCsv(ctx: WriteContext): Promise<WrittenFile> {
  const { plan } = ctx;
  const labels = plan.options.labels;
  const file = path.join(ctx.dir, 'export.csv');
  const sink = new TextSink(file);
  await sink.write(BOM + testNoticeLine(ctx) + csvLine(LONG_HEADER));
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
              isChoiceType(node.type) || isRowType(node.type) || DATE_TYPES.has(node.type) || isUploadItem(node)
                ? null
                : `,${csvField(node.name)},${csvField(node.title || node.name)},,`,
            addition: hasAddition(node)
              ? `,${csvField(additionKey(node.name))},${csvField(additionTitle(node))},,`
              : null,
          })),
      ];
    }),
  );
  let rows = 0;
  for await (const batch of patientPass(ctx)) {
    for (const { patient, records } of patientsWithRecords(batch)) {
      const code = patient.code;
      for (const c of plan.patientColumns) {
        if (c.name === 'subject_code') continue;
        const v = patientCell(plan, patient, c.name, labels);
        if (v === null) continue;
        await sink.write(csvLine([code, '', '', '患者信息', '', '', c.name, c.title, '', v, '', '', '', '']));
        rows += 1;
      }
      for (const record of records) {
        const form = formOf.get(record.crfId)!;
        const state = labels ? (RECORD_STATE_LABELS[String(record.state)] ?? record.state) : record.state;
        const lead = csvLine([code, stageName(form), form.crfId, form.title, record.instance, state]).slice(0, -2);
        let chunk = '';
        for (const { node, named, addition } of itemsOf.get(form.crfId)!) {
          const value = record.values[node.name];
          // The common case first: a number as stored needs neither checks nor quoting.
          if (typeof value === 'number' && named && addition === null) {
            chunk += `${lead}${named}${value}${rangeCells(node, record, labels)}\r\n`;
            rows += 1;
            continue;
          }
          // 缺失原因: a marked item (it holds no value) gets a row of its own, item `<item>_missing`, value the code.
          const mark = record.values[missingKey(node.name)];
          if (typeof mark === 'string') {
            chunk += `${lead},${csvField(missingKey(node.name))},${csvField(`${node.title || node.name}（缺失原因）`)},,${csvField(mark)}${NO_RANGE}\r\n`;
            rows += 1;
          }
          if (isRowType(node.type)) {
            readRows(value).forEach((row, i) => {
              for (const child of node.children) {
                if (!child.name) continue;
                const v = itemValue(child, row[child.name], row, labels, patient.shiftDays, record.fileNames);
                if (v !== null) {
                  chunk += `${lead},${csvField(`${node.name}.${child.name}`)},${csvField(child.title || child.name)},${i + 1},${csvField(v)}${NO_RANGE}\r\n`;
                  rows += 1;
                }
                const extra = additionText(child, row);
                if (extra === null) continue;
                chunk += `${lead},${csvField(`${node.name}.${additionKey(child.name)}`)},${csvField(additionTitle(child))},${i + 1},${csvField(extra)}${NO_RANGE}\r\n`;
                rows += 1;
              }
            });
            continue;
          }
          const v = itemValue(node, value, record.values, labels, patient.shiftDays, record.fileNames);
          if (v !== null) {
            chunk += `${lead}${named ?? `,${csvField(node.name)},${csvField(node.title || node.name)},,`}${csvField(v)}${rangeCells(node, record, labels)}\r\n`;
            rows += 1;
          }
          const extra = addition === null ? null : additionText(node, record.values);
          if (extra === null) continue;
          chunk += `${lead}${addition}${csvField(extra)}${NO_RANGE}\r\n`;
          rows += 1;
        }
        await sink.write(chunk);
      }
    }
  }
  await sink.close();
  return { path: file, contentType: 'text/csv; charset=utf-8', rows };
}
