import {
  conditionIssue,
  FORM_STATE_OPERATORS,
  SEARCH_OPERATORS,
  type FormStateFilter,
  type PatientSearchField,
  type SearchColumn,
  type SearchCondition,
  type SearchConditions,
  type SearchJoin,
  type SearchKind,
  type SearchOperator,
} from '@ecrf/core';
import type { SearchDics, SearchOption } from '../../../api/search.api';

/**
 * The condition builder's state and its translation to and from the API's condition model (core's schemas).
 * A field is one string: `p:<field>` a patient field, `i:<crfId>:<name>` a form item, `s:<crfId>` a form's state.
 */
export interface DraftRow {
  key: number;
  field?: string;
  stageId?: number;
  operator?: SearchOperator;
  values: string[];
}
export interface DraftGroup {
  key: number;
  join: SearchJoin;
  rows: DraftRow[];
}
export interface Draft {
  join: SearchJoin;
  groups: DraftGroup[];
}

let nextKey = 1;
export const newRow = (): DraftRow => ({ key: nextKey++, values: [] });
export const newGroup = (): DraftGroup => ({ key: nextKey++, join: 'and', rows: [newRow()] });
export const emptyDraft = (): Draft => ({ join: 'and', groups: [newGroup()] });

export interface FieldInfo {
  kind: SearchKind | 'formState';
  title: string;
  operators: readonly SearchOperator[];
  options: SearchOption[];
  stages: Array<{ stageId: number; name: string }>;
  /** The unit a number is written in, and every unit of its unit selector (the others are converted to it). */
  unit: string;
  units: string[];
  /** The list group or table (by form and name) whose rows hold the item. */
  group: { crfId: number; name: string; title: string } | null;
}

/** What the dictionary says about a field value of the picker; null when the caller may no longer search it. */
export function fieldInfo(dics: SearchDics, field: string | undefined): FieldInfo | null {
  if (!field) return null;
  const [type, a, b] = field.split(':');
  if (type === 'p') {
    const f = dics.patientFields.find((x) => x.field === a);
    return f
      ? {
          kind: f.kind,
          title: f.title,
          operators: f.operators,
          options: f.options,
          stages: [],
          unit: '',
          units: [],
          group: null,
        }
      : null;
  }
  const crf = dics.crfs.find((c) => c.crfId === Number(a));
  if (!crf) return null;
  if (type === 's') {
    return {
      kind: 'formState',
      title: `${crf.title} · 表单状态`,
      operators: FORM_STATE_OPERATORS,
      options: dics.formStates.map((s) => ({ value: s.code, label: s.label })),
      stages: crf.stages,
      unit: '',
      units: [],
      group: null,
    };
  }
  const item = crf.items.find((i) => i.name === b);
  return item
    ? {
        kind: item.kind,
        title: item.path,
        operators: item.operators,
        options: item.options,
        stages: crf.stages,
        unit: item.unit,
        units: item.units,
        group: item.group ? { crfId: crf.crfId, name: item.group.name, title: item.group.title } : null,
      }
    : null;
}

/**
 * The list groups (and tables) of which a condition group holds two or more conditions joined by 且: the server
 * judges those on one row (docs/data-export.md), and the builder says so under the group.
 */
export function sameRowGroups(dics: SearchDics, group: DraftGroup): string[] {
  if (group.join !== 'and') return [];
  const counts = new Map<string, { title: string; n: number }>();
  for (const row of group.rows) {
    const info = fieldInfo(dics, row.field);
    if (!info?.group) continue;
    const key = `${info.group.crfId}:${info.group.name}`;
    const seen = counts.get(key) ?? { title: info.group.title, n: 0 };
    counts.set(key, { ...seen, n: seen.n + 1 });
  }
  return [...counts.values()].filter((c) => c.n > 1).map((c) => c.title);
}

export const arityOf = (operator: SearchOperator | undefined) =>
  SEARCH_OPERATORS.find((o) => o.code === operator)?.arity ?? 1;

/** A row as a condition of the API, or a message saying what is missing or wrong. */
export function rowCondition(dics: SearchDics, row: DraftRow): SearchCondition | string {
  const info = fieldInfo(dics, row.field);
  if (!info || !row.operator) return '请完成每个条件的字段、运算符和值';
  const [type, a, b] = row.field!.split(':');
  const values = row.values.map((v) => v.trim()).filter((v) => v !== '');
  if (info.kind === 'formState') {
    if (values.length !== 1) return `${info.title}：请选择表单状态`;
    return {
      kind: 'formState',
      crfId: Number(a),
      stageId: row.stageId ?? null,
      operator: row.operator as 'eq' | 'ne',
      values: [values[0] as FormStateFilter],
    };
  }
  const issue = conditionIssue(
    info.kind,
    row.operator,
    values,
    info.operators,
    info.options.length > 0 ? info.options.map((o) => o.value) : undefined,
  );
  if (issue) return `${info.title}：${issue}`;
  if (type === 'p') return { kind: 'patient', field: a as PatientSearchField, operator: row.operator, values };
  return { kind: 'item', crfId: Number(a), itemName: b!, stageId: row.stageId ?? null, operator: row.operator, values };
}

/** The draft as the API's conditions; rows left entirely empty are skipped, any other problem is answered as text. */
export function toConditions(dics: SearchDics, draft: Draft): SearchConditions | string {
  const groups = [];
  for (const group of draft.groups) {
    const rows = group.rows.filter((r) => r.field || r.operator || r.values.length > 0);
    const conditions: SearchCondition[] = [];
    for (const row of rows) {
      const condition = rowCondition(dics, row);
      if (typeof condition === 'string') return condition;
      conditions.push(condition);
    }
    if (conditions.length > 0) groups.push({ join: group.join, conditions });
  }
  return { join: draft.join, groups };
}

/** A saved template's conditions back into the builder. */
export function fromConditions(conditions: SearchConditions): Draft {
  const groups = conditions.groups.map((g) => ({
    key: nextKey++,
    join: g.join,
    rows: g.conditions.map((c) => ({
      key: nextKey++,
      field: c.kind === 'patient' ? `p:${c.field}` : c.kind === 'item' ? `i:${c.crfId}:${c.itemName}` : `s:${c.crfId}`,
      stageId: c.kind === 'patient' ? undefined : (c.stageId ?? undefined),
      operator: c.operator,
      values: [...c.values],
    })),
  }));
  return { join: conditions.join, groups: groups.length > 0 ? groups : [newGroup()] };
}

export const columnValue = (column: SearchColumn) =>
  column.kind === 'patient' ? `p:${column.field}` : `i:${column.crfId}:${column.itemName}`;

export function toColumn(value: string): SearchColumn {
  const [type, a, b] = value.split(':');
  return type === 'p'
    ? { kind: 'patient', field: a as PatientSearchField }
    : { kind: 'item', crfId: Number(a), itemName: b! };
}
