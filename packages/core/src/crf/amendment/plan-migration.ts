import type { CompiledForm, NodeInfo } from '../compile-form.js';
import { isRowType, isValueType, type CrfDefinition, type CrfNode } from '../crf-definition.schema.js';
import {
  additionKey,
  evaluateForm,
  getCompiledForm,
  unitKey,
  type FormState,
  type ItemState,
} from '../evaluate-form.js';
import { isEmptyValue } from '../field-rules.js';
import { ITEM_TYPE_LABELS } from '../item-type-labels.js';
import { itemTitle, nodesByName, sameValue } from '../record-values.js';
import { readRows, type RowValues } from '../value-shapes.js';
import {
  VALUE_CHANGING_KINDS,
  type AmendmentRecord,
  type ImpactReport,
  type MigrationOptions,
  type PlannedChange,
  type RecordImpact,
  type ValueChangeKind,
} from './amendment-types.js';
import { diffDefinitions, itemLabel } from './diff-definitions.js';
import { droppedMarkChanges } from './migrate-marks.js';
import { convertValue, migrationContext, newFindings, type RecordContext } from './value-judgement.js';

export type { RecordContext } from './value-judgement.js';

export interface RecordMigration {
  /** The values the record stores under the new version. */
  values: Record<string, unknown>;
  /** Every difference from the stored values, and what the new version newly says about the values it keeps. */
  changes: PlannedChange[];
  /** The missing-data marks the record keeps under the new version (migrate-marks.ts). */
  missing: Record<string, string>;
}

export const MIGRATION_MSG = {
  removed: '新版本没有该题目：值保留在记录中（不显示，仍可导出）',
  hidden: '新版本的显示条件隐藏该题目：值按保存规则清空',
  additionHidden: '所选选项在新版本中不需要注明：注明内容按保存规则清空',
  unitHidden: '新版本不提供所选单位：单位按保存规则清空',
  calculation: '新版本的计算结果不同',
  reshaped: '值按新版本的格式保存',
  converted: (from: string, to: string) => `题目类型由「${from}」改为「${to}」：值按新类型无损转换`,
  lossy: (from: string, to: string) => `题目类型由「${from}」改为「${to}」：值不能无损转换，保留原值`,
  lossyShape: '值不能按新版本的格式保存：保留原值',
} as const;

const typeLabel = (node: CrfNode) => ITEM_TYPE_LABELS[node.type] ?? node.type;

/** Everything one migration reads: both versions compiled, both evaluations, the stored and the new values. */
interface Plan {
  from: CompiledForm;
  to: CompiledForm;
  oldNodes: ReadonlyMap<string, CrfNode>;
  newNodes: ReadonlyMap<string, CrfNode>;
  stored: Readonly<Record<string, unknown>>;
  /** The record under the old version, evaluated when a finding needs it (most records need none). */
  before: () => FormState;
  after: FormState;
  out: Record<string, unknown>;
  changes: PlannedChange[];
  /** Top-level keys and `row:column` cells whose value was kept as it was because it cannot convert. */
  lossy: Set<string>;
  today: string;
}

const cellKey = (row: number, column: string) => `${row}:${column}`;

/** The old node of the same name when it held a value (any place in the old form). */
const oldValueNode = (plan: Pick<Plan, 'oldNodes'>, name: string) => {
  const node = plan.oldNodes.get(name);
  return node && isValueType(node.type) ? node : undefined;
};

/** The old version's state of an item (or a row's cell) kept with the same type and place, to compare with. */
function stateBefore(plan: Plan, info: NodeInfo, row?: number): ItemState | undefined {
  const old = plan.from.byName.get(info.node.name);
  if (!old || old.node.type !== info.node.type) return undefined;
  if (!info.rowOwner) return old.rowOwner ? undefined : plan.before().items[old.key];
  if (old.rowOwner?.node.name !== info.rowOwner.node.name) return undefined;
  return plan.before().items[old.rowOwner.key]?.rows?.[row ?? -1]?.[old.key];
}

const topItems = (compiled: CompiledForm) =>
  compiled.nodes.filter((info) => !info.rowOwner && info.node.name !== '' && isValueType(info.node.type));
const rowMembers = (compiled: CompiledForm, owner: NodeInfo) =>
  compiled.nodes.filter((info) => info.rowOwner === owner && info.node.name !== '' && isValueType(info.node.type));
const keysOf = (name: string) => [name, additionKey(name), unitKey(name)];

/**
 * The values to evaluate: each item's value converted to its new type where it converts losslessly, kept as it was
 * otherwise (and remembered as lossy); row cells alike.
 */
function inputFor(plan: Plan): Record<string, unknown> {
  const input: Record<string, unknown> = { ...plan.stored };
  for (const info of topItems(plan.to)) {
    const name = info.node.name;
    if (!Object.hasOwn(plan.stored, name)) continue;
    const old = oldValueNode(plan, name);
    // A list stays a list whichever kind (list group, table): its cells convert one by one, its rows keep the
    // cells of removed columns.
    const list = isRowType(info.node.type) && old !== undefined && isRowType(old.type);
    const conversion = list
      ? { value: plan.stored[name], lossy: false }
      : convertValue(old, info.node, plan.stored[name], plan.today);
    input[name] = conversion.value;
    if (conversion.lossy) plan.lossy.add(name);
    if (!isRowType(info.node.type) || conversion.lossy) continue;
    const members = rowMembers(plan.to, info);
    input[name] = readRows(conversion.value).map((row, index) => {
      const next: RowValues = { ...row };
      for (const member of members) {
        const column = member.node.name;
        if (!Object.hasOwn(row, column)) continue;
        const cell = convertValue(oldValueNode(plan, column), member.node, row[column], plan.today);
        next[column] = cell.value;
        if (cell.lossy) plan.lossy.add(cellKey(index, column));
      }
      return next;
    });
  }
  return input;
}

/** Where the stored and the new value are the same value, the stored one stays as it was stored. */
function keepSame(out: Record<string, unknown>, stored: Readonly<Record<string, unknown>>, key: string) {
  if (!sameValue(out[key], stored[key])) return;
  if (Object.hasOwn(stored, key)) out[key] = stored[key];
  else delete out[key];
}

const isRowList = (value: unknown): value is RowValues[] =>
  Array.isArray(value) && value.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row));

/** Why an item's (or cell's) value changed: its state under the new version says. */
function changeKind(
  plan: Plan,
  info: NodeInfo,
  key: string,
  state: ItemState | undefined,
  lossyKey: string,
): { kind: ValueChangeKind; message: string } {
  const name = info.node.name;
  if (!state?.visible) return { kind: 'hidden', message: MIGRATION_MSG.hidden };
  if (key === additionKey(name)) return { kind: 'hidden', message: MIGRATION_MSG.additionHidden };
  if (key === unitKey(name)) return { kind: 'hidden', message: MIGRATION_MSG.unitHidden };
  if (info.calc && state.calculated) return { kind: 'calculation', message: MIGRATION_MSG.calculation };
  const old = oldValueNode(plan, name);
  if (old && old.type !== info.node.type && !keptAsStored(plan, state, lossyKey)) {
    return { kind: 'converted', message: MIGRATION_MSG.converted(typeLabel(old), typeLabel(info.node)) };
  }
  return { kind: 'converted', message: MIGRATION_MSG.reshaped };
}

/** A lossy value (kept as it was) stands where the item shows and is not calculated. */
const keptAsStored = (plan: Plan, state: ItemState | undefined, lossyKey: string) =>
  plan.lossy.has(lossyKey) && state?.visible === true && !state.calculated;

/**
 * What the new version newly says about the value it stores (invalid, out of range), or that the stored value could
 * not convert. oldValue is the stored value, newValue the migrated one (the same unless a change above altered it).
 */
function judgeKept(
  plan: Plan,
  info: NodeInfo,
  state: ItemState | undefined,
  lossyKey: string,
  values: { oldValue: unknown; newValue: unknown },
  row?: number,
): PlannedChange[] {
  const base = { itemName: info.node.name, label: itemLabel(info.node), ...values };
  if (keptAsStored(plan, state, lossyKey)) {
    const old = oldValueNode(plan, info.node.name);
    const message =
      old && old.type !== info.node.type
        ? MIGRATION_MSG.lossy(typeLabel(old), typeLabel(info.node))
        : MIGRATION_MSG.lossyShape;
    return [{ ...base, kind: 'invalid', message }];
  }
  return newFindings(info, state, () => stateBefore(plan, info, row)).map((f) => ({ ...base, ...f }));
}

/** A list's rows cell by cell: lossy cells kept as they were, removed columns' cells kept inert, changes said. */
function planRows(plan: Plan, info: NodeInfo, state: ItemState | undefined) {
  const name = info.node.name;
  const storedRows = plan.stored[name];
  const rowsOut = plan.out[name];
  if (!state?.visible || plan.lossy.has(name) || !isRowList(storedRows) || !isRowList(rowsOut)) return false;
  if (storedRows.length !== rowsOut.length) return false;
  const members = rowMembers(plan.to, info);
  const known = new Set(members.flatMap((m) => keysOf(m.node.name)));
  const container = { container: name };
  plan.out[name] = rowsOut.map((rowOut, index) => {
    const storedRow = storedRows[index]!;
    const next: RowValues = { ...rowOut };
    const cellStates = state.rows?.[index] ?? {};
    for (const member of members) {
      const column = member.node.name;
      if (keptAsStored(plan, cellStates[member.key], cellKey(index, column))) next[column] = storedRow[column];
    }
    for (const key of Object.keys(storedRow)) {
      if (known.has(key)) continue;
      next[key] = storedRow[key];
      if (isEmptyValue(storedRow[key])) continue;
      plan.changes.push({
        itemName: key,
        label: itemTitle(plan.oldNodes, key),
        kind: 'removed',
        oldValue: storedRow[key],
        newValue: storedRow[key],
        message: MIGRATION_MSG.removed,
        ...container,
        row: index,
      });
    }
    for (const member of members) {
      const cellState = cellStates[member.key];
      const column = member.node.name;
      for (const key of keysOf(column)) {
        keepSame(next, storedRow, key);
        if (sameValue(next[key], storedRow[key])) continue;
        const { kind, message } = changeKind(plan, member, key, cellState, cellKey(index, column));
        const label = itemTitle(plan.newNodes, key);
        plan.changes.push({
          itemName: key,
          label,
          kind,
          oldValue: storedRow[key],
          newValue: next[key],
          message,
          ...container,
          row: index,
        });
      }
      for (const finding of judgeKept(
        plan,
        member,
        cellState,
        cellKey(index, column),
        { oldValue: storedRow[column], newValue: next[column] },
        index,
      )) {
        plan.changes.push({ ...finding, ...container, row: index });
      }
    }
    return next;
  });
  return true;
}

/**
 * The values a record stores when it moves from version `from` to version `to` of its form, and every change:
 * - values are carried by item name; an item's value converts to a new type when it converts losslessly
 *   ('converted'), else it is kept as it was ('invalid');
 * - the rest is what a save of the same values under the new version stores (evaluateForm, as judgeSave runs it):
 *   values the new skip logic hides are cleared ('hidden'), calculations recomputed ('calculation'), shapes made
 *   canonical ('converted');
 * - a value the new version does not know (a removed item, a removed column's cell) stays untouched ('removed');
 * - a value the new version newly refuses is kept ('invalid', 'outOfRange').
 * A value that stays the same value keeps its stored form. Pure: the definitions and values are not touched.
 */
export function migrateRecordValues(
  from: CrfDefinition,
  to: CrfDefinition,
  values: Readonly<Record<string, unknown>>,
  options: MigrationOptions,
  record: RecordContext = {},
): RecordMigration {
  const context = migrationContext(options, record);
  const plan: Plan = {
    from: getCompiledForm(from),
    to: getCompiledForm(to),
    oldNodes: nodesByName(from),
    newNodes: nodesByName(to),
    stored: values,
    before: () => {
      const state = evaluateForm(from, values, context);
      plan.before = () => state;
      return state;
    },
    after: undefined as unknown as FormState,
    out: {},
    changes: [],
    lossy: new Set(),
    today: options.today,
  };
  plan.after = evaluateForm(to, inputFor(plan), context);
  plan.out = { ...plan.after.values };

  const known = new Set<string>();
  for (const info of topItems(plan.to)) {
    const name = info.node.name;
    for (const key of keysOf(name)) known.add(key);
    const state = plan.after.items[info.key];
    if (keptAsStored(plan, state, name)) plan.out[name] = values[name];
    if (isRowType(info.node.type) && planRows(plan, info, state)) continue;
    for (const key of keysOf(name)) {
      keepSame(plan.out, values, key);
      if (sameValue(plan.out[key], values[key])) continue;
      const { kind, message } = changeKind(plan, info, key, state, name);
      const label = itemTitle(plan.newNodes, key);
      plan.changes.push({ itemName: key, label, kind, oldValue: values[key], newValue: plan.out[key], message });
    }
    if (!isRowType(info.node.type)) {
      plan.changes.push(...judgeKept(plan, info, state, name, { oldValue: values[name], newValue: plan.out[name] }));
    }
  }
  for (const [key, value] of Object.entries(values)) {
    if (known.has(key)) continue;
    plan.out[key] = value;
    if (isEmptyValue(value)) continue;
    plan.changes.push({
      itemName: key,
      label: itemTitle(plan.oldNodes, key),
      kind: 'removed',
      oldValue: value,
      newValue: value,
      message: MIGRATION_MSG.removed,
    });
  }
  const missing = { ...plan.after.missing };
  plan.changes.push(...droppedMarkChanges(record.missing ?? {}, missing, plan.to, plan.oldNodes));
  return { values: plan.out, changes: plan.changes, missing };
}

/** Whether a change alters what is stored (hidden, converted, calculation). */
export const changesStoredValue = (change: Pick<PlannedChange, 'kind'>) => VALUE_CHANGING_KINDS.includes(change.kind);

/** One record's impact: its changes, whether its stored values change, its states, whether it would move. */
export function planRecordMigration(
  from: CrfDefinition,
  to: CrfDefinition,
  record: AmendmentRecord,
  options: MigrationOptions,
): RecordImpact {
  const { changes } = migrateRecordValues(from, to, record.values, options, record);
  return {
    recordId: record.id,
    changes,
    valuesChange: changes.some(changesStoredValue),
    submitted: record.submitted,
    signed: record.signed,
    sdvVerified: record.sdvVerified,
    locked: record.locked,
    willMove: !record.locked,
  };
}

const KIND_ORDER: readonly ValueChangeKind[] = [
  'removed',
  'hidden',
  'converted',
  'calculation',
  'invalid',
  'outOfRange',
];

/**
 * The impact report of moving `records` from `from` to `to`: the definition diff, the records' counts (locked ones
 * included: they never move, and are reported), and the findings: one per kind and item, counting its changes
 * (one per record, or per row for a list's column: the drill-down's rows), ordered by kind, then first seen.
 */
export function buildImpactReport(
  from: CrfDefinition,
  to: CrfDefinition,
  records: readonly AmendmentRecord[],
  options: MigrationOptions,
): ImpactReport {
  const perRecord = records.map((record) => planRecordMigration(from, to, record, options));
  const findings = new Map<string, { kind: ValueChangeKind; itemName: string; label: string; count: number }>();
  for (const impact of perRecord) {
    for (const change of impact.changes) {
      const key = `${change.kind}\u0000${change.itemName}`;
      const finding = findings.get(key);
      if (finding) finding.count += 1;
      else findings.set(key, { kind: change.kind, itemName: change.itemName, label: change.label, count: 1 });
    }
  }
  const count = (pick: (r: RecordImpact) => boolean) => perRecord.filter(pick).length;
  const changed = count((r) => r.valuesChange);
  return {
    ...(options.fromVersion !== undefined ? { fromVersion: options.fromVersion } : {}),
    ...(options.toVersion !== undefined ? { toVersion: options.toVersion } : {}),
    diff: diffDefinitions(from, to),
    records: {
      total: perRecord.length,
      submitted: count((r) => r.submitted),
      signed: count((r) => r.signed),
      sdvVerified: count((r) => r.sdvVerified),
      locked: count((r) => r.locked),
      changed,
      unchanged: perRecord.length - changed,
    },
    findings: [...findings.values()].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind)),
    perRecord,
  };
}
