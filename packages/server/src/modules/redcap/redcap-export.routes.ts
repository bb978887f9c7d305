// content=record without data: the call's side of a records export (REDCap's parameters, each carried out or refused).
import { formatDateParts, instantOfWallClock, parseDateTime } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { ApiCaller } from './api-token.service.js';
import { writeCsv } from './redcap-csv.js';
import type { Format } from './redcap-errors.js';
import { compileFilter } from './redcap-filter.js';
import { choice, flag, list, text, type Params } from './redcap-params.js';
import {
  completeColumn,
  EVENT,
  RECORD_ID,
  refuse,
  REPEAT_INSTANCE,
  REPEAT_INSTRUMENT,
  selectCompletes,
  selectFields,
  type Project,
  type Row,
} from './redcap-project.js';
import { casebooksChangedBetween, exportRecords, toEav } from './redcap-records-export.js';

/** A records export's answer: the rows and their columns, or (label headers) the CSV itself; counts for the log. */
export interface ExportAnswer {
  records: number;
  rows: Row[];
  columns: string[];
  csv: string | null;
}

/**
 * REDCap's export parameters we do not carry out, refused when they ask for anything but the default rather than
 * left without effect: the answer would not be what the caller asked for.
 */
function refuseUnsupported(params: Params) {
  if (flag(params, 'exportSurveyFields')) {
    throw refuse(
      '不支持 exportSurveyFields：平台没有调查问卷（survey），没有 redcap_survey_identifier 和 <表单>_timestamp 字段',
    );
  }
  if (flag(params, 'exportDataAccessGroups')) {
    throw refuse('不支持 exportDataAccessGroups：分中心不作为数据访问组（redcap_data_access_group）导出');
  }
  const delimiter = text(params, 'csvDelimiter');
  if (delimiter !== '' && delimiter !== ',') throw refuse(`不支持 csvDelimiter=${delimiter}：CSV 以逗号分隔`);
  const decimal = text(params, 'decimalCharacter');
  if (decimal !== '' && decimal !== '.') {
    throw refuse(`不支持 decimalCharacter=${decimal}：数值按录入导出，小数点为点号（.）`);
  }
}

/** REDCap's dateRangeBegin/End (`YYYY-MM-DD[ HH:MM[:SS]]`, the study's time): a missing time is the day's start or end. */
function rangeBound(params: Params, name: string, end: boolean, timeZone: string): Date | null {
  const value = text(params, name);
  if (value === '') return null;
  const parts = parseDateTime(value);
  if (!parts) throw refuse(`参数 ${name} 的值 ${value} 无效，应为 YYYY-MM-DD HH:MM:SS`);
  const timed = /[ T]\d/.test(value);
  const [hour, minute, second] = timed ? [parts.hour, parts.minute, parts.second] : end ? [23, 59, 59] : [0, 0, 0];
  const clock = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
  const at = instantOfWallClock(formatDateParts(parts), clock, timeZone);
  return new Date(at.getTime() + second * 1000 + (end ? 999 : 0));
}

/** dateRangeBegin/End: the casebooks changed in the range, or undefined without one (every record). */
function changedInRange(ctx: AppContext, project: Project, params: Params, timeZone: string) {
  const begin = rangeBound(params, 'dateRangeBegin', false, timeZone);
  const end = rangeBound(params, 'dateRangeEnd', true, timeZone);
  return begin || end ? casebooksChangedBetween(ctx, project, begin, end) : undefined;
}

/** The events[] of a call: unique names of the project's events; a classic project has none to name. */
function eventsOf(project: Project, params: Params): Set<string> | undefined {
  const events = list(params, 'events');
  if (events.length === 0) return undefined;
  if (!project.longitudinal) throw refuse('项目没有阶段（不是纵向项目），不能按事件（参数 events）筛选');
  const unknown = events.filter((e) => !project.events.some((p) => p.name === e));
  if (unknown.length > 0) throw refuse(`参数 events 中的事件不存在：${unknown.join(', ')}（事件见 content=event）`);
  return new Set(events);
}

const plain = (label: string) => label.replace(/<[^>]*>/g, '').trim();

/** REDCap's label headers (rawOrLabelHeaders=label): field labels, a choice as `label (choice=…)`, fixed names. */
function headerLabels(project: Project, columns: string[]): string[] {
  const fixed: Record<string, string> = {
    [EVENT]: 'Event Name',
    [REPEAT_INSTRUMENT]: 'Repeat Instrument',
    [REPEAT_INSTANCE]: 'Repeat Instance',
  };
  const boxes = new Map<string, string>();
  for (const f of project.fields) {
    for (const c of f.codes ?? []) {
      boxes.set(c.column, `${plain(f.row.label)} (choice=${c.label.replace(/['"]/g, '')})`);
    }
  }
  const statuses = new Set(project.instruments.map((i) => completeColumn(i.form)));
  return columns.map((c) => {
    if (fixed[c]) return fixed[c];
    if (statuses.has(c)) return 'Complete?';
    if (c === RECORD_ID) return plain(project.byVariable.get(RECORD_ID)?.row.label ?? '') || 'Record ID';
    return boxes.get(c) ?? plain(project.byVariable.get(c)?.row.label ?? c);
  });
}

/**
 * A records export as REDCap answers it: flat or EAV, filtered by records, fields, forms, events, the date range
 * of changes and filterLogic; raw or label values (checkboxes as their labels with exportCheckboxLabel), label
 * headers for csv. Every REDCap export parameter is carried out or refused (refuseUnsupported).
 */
export async function exportCall(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  params: Params,
  format: Format,
): Promise<ExportAnswer> {
  refuseUnsupported(params);
  const type = choice(params, 'type', ['flat', 'eav'] as const, 'flat');
  const label = choice(params, 'rawOrLabel', ['raw', 'label'] as const, 'raw') === 'label';
  const labelHeaders = choice(params, 'rawOrLabelHeaders', ['raw', 'label'] as const, 'raw') === 'label';
  if (labelHeaders && (format !== 'csv' || type === 'eav')) {
    throw refuse('rawOrLabelHeaders=label 只用于 format=csv 的 flat 导出（REDCap 只在 CSV 的表头写标签）');
  }
  // REDCap reads eventName in EAV exports only (flat rows name the event by rawOrLabel); PyCap sends label.
  const eventName = choice(params, 'eventName', ['unique', 'label', 'raw'] as const, 'unique');
  const checkboxLabels = flag(params, 'exportCheckboxLabel');
  if (checkboxLabels && !label) throw refuse('exportCheckboxLabel 只在 rawOrLabel=label 时有效（导出选项标签）');
  const fields = list(params, 'fields');
  const forms = list(params, 'forms');
  const logic = text(params, 'filterLogic');
  const { timeZone } = caller.access;
  const exported = await exportRecords(ctx, project, selectFields(project, fields, forms), {
    records: list(params, 'records'),
    label,
    filter: logic ? compileFilter(project, logic, ctx.clock(), timeZone) : null,
    completes: selectCompletes(project, fields, forms),
    events: eventsOf(project, params),
    casebooks: await changedInRange(ctx, project, params, timeZone),
    checkboxLabels,
    eventLabels: type === 'eav' ? eventName === 'label' : label,
    // EAV rows are the values entered: a form never started has no status to write.
    blankForGray: type === 'eav' || flag(params, 'exportBlankForGrayFormStatus'),
  });
  if (type === 'eav') {
    const columns = [
      'record',
      ...(project.longitudinal ? [EVENT] : []),
      ...(project.repeating ? [REPEAT_INSTRUMENT, REPEAT_INSTANCE] : []),
      'field_name',
      'value',
    ];
    return { records: exported.records, rows: toEav(project, exported.columns, exported.rows), columns, csv: null };
  }
  let csv: string | null = null;
  if (labelHeaders) {
    // The same CSV under the labels' header line (a header is one line: column names hold no line break).
    const body = writeCsv(exported.columns, exported.rows);
    csv = writeCsv(headerLabels(project, exported.columns), []) + body.slice(body.indexOf('\n') + 1);
  }
  return { records: exported.records, rows: exported.rows, columns: exported.columns, csv };
}
