import { isRowType, isValueType, type CrfDefinition, type CrfNode } from './crf-definition.schema.js';
import { additionKey } from './evaluate-form.js';
import { isEmptyValue } from './field-rules.js';
import { IDENTIFIER_MASK, isIdentifierItem, isIdentifierMask } from './identifier-mask.js';
import { sameValue } from './record-values.js';
import { readRows, type RowValues } from './value-shapes.js';

/**
 * PIPL: values of CRF items flagged `identifier` are read, like the patient's own identifiers, only with the study
 * button 查看患者身份信息. One rule for every answer that carries form values (the form page, overview, print, the
 * trail, queries, search and export) and for the save: what is an identifier here, how it is masked or left out,
 * and how a mask sent back is recognised (docs/decisions.md, "Identifier items").
 */

/** Where a record keeps identifiers. */
export interface IdentifierItems {
  /** Keys of the record: each identifier item's value and its addition text (a unit identifies nobody). */
  items: ReadonlySet<string>;
  /** List groups and tables with identifier columns → the columns' keys in each row (value and addition text). */
  rows: ReadonlyMap<string, ReadonlySet<string>>;
}

const NONE: IdentifierItems = { items: new Set(), rows: new Map() };
const cache = new WeakMap<object, IdentifierItems>();
const keysOf = (name: string) => [name, additionKey(name)];

function itemsOfOne(definition: Pick<CrfDefinition, 'children'>): IdentifierItems {
  const cached = cache.get(definition);
  if (cached) return cached;
  const items = new Set<string>();
  const rows = new Map<string, Set<string>>();
  const columns = (nodes: readonly CrfNode[], out: Set<string>) => {
    for (const node of nodes) {
      if (node.name && isValueType(node.type) && isIdentifierItem(node)) {
        for (const key of keysOf(node.name)) out.add(key);
      }
      columns(node.children, out);
    }
  };
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (isRowType(node.type)) {
        const out = new Set<string>();
        columns(node.children, out);
        if (node.name && out.size > 0) rows.set(node.name, out);
        continue;
      }
      if (node.name && isValueType(node.type) && isIdentifierItem(node)) {
        for (const key of keysOf(node.name)) items.add(key);
      }
      walk(node.children);
    }
  };
  walk(definition.children);
  const found = items.size === 0 && rows.size === 0 ? NONE : { items, rows };
  cache.set(definition, found);
  return found;
}

/**
 * The identifier items of one or more definitions of a form, together: a record is read under its own version and
 * the form's current one, so an item flagged in either (flagged later, or dropped from the form since) stays masked.
 */
export function identifierItemsOf(...definitions: ReadonlyArray<Pick<CrfDefinition, 'children'>>): IdentifierItems {
  const found = [...new Set(definitions)].map(itemsOfOne).filter((ids) => ids !== NONE);
  if (found.length <= 1) return found[0] ?? NONE;
  const items = new Set<string>();
  const rows = new Map<string, Set<string>>();
  for (const ids of found) {
    for (const key of ids.items) items.add(key);
    for (const [container, columns] of ids.rows) {
      rows.set(container, new Set([...(rows.get(container) ?? []), ...columns]));
    }
  }
  return { items, rows };
}

export const hasIdentifierItems = (ids: IdentifierItems) => ids.items.size > 0 || ids.rows.size > 0;

/** Whether a value of the record (`container`: the list group or table of a cell) is an identifier. */
export function isIdentifierKey(ids: IdentifierItems, key: string, container?: string | null): boolean {
  return container ? (ids.rows.get(container)?.has(key) ?? false) : ids.items.has(key);
}

/** A value as a reader without the permission gets it: the mask when filled; empty stays empty. */
export const maskedValue = (value: unknown): unknown => (isEmptyValue(value) ? value : IDENTIFIER_MASK);

function hideRow(row: RowValues, columns: ReadonlySet<string>, drop: boolean): RowValues {
  let out: RowValues | null = null;
  for (const key of columns) {
    if (!Object.hasOwn(row, key) || isEmptyValue(row[key])) continue;
    out ??= { ...row };
    if (drop) delete out[key];
    else out[key] = IDENTIFIER_MASK;
  }
  return out ?? row;
}

function hideRows(value: unknown, columns: ReadonlySet<string>, drop: boolean): unknown {
  const rows = readRows(value);
  const hidden = rows.map((row) => hideRow(row, columns, drop));
  return hidden.some((row, i) => row !== rows[i]) ? hidden : value;
}

function hide<T extends Readonly<Record<string, unknown>>>(ids: IdentifierItems, values: T, drop: boolean): T {
  if (!hasIdentifierItems(ids)) return values;
  let out: Record<string, unknown> | null = null;
  for (const key of ids.items) {
    if (!Object.hasOwn(values, key) || isEmptyValue(values[key])) continue;
    out ??= { ...values };
    if (drop) delete out[key];
    else out[key] = IDENTIFIER_MASK;
  }
  for (const [container, columns] of ids.rows) {
    if (!Object.hasOwn(values, container)) continue;
    const hidden = hideRows(values[container], columns, drop);
    if (hidden === values[container]) continue;
    out ??= { ...values };
    out[container] = hidden;
  }
  return (out ?? values) as T;
}

/** A record's values with every filled identifier (list-group and table cells included) replaced by the mask. */
export const maskIdentifierItems = <T extends Readonly<Record<string, unknown>>>(ids: IdentifierItems, values: T): T =>
  hide(ids, values, false);

/** A record's values without its identifiers: what an export holds unless identifiers were asked for (and allowed). */
export const withoutIdentifierItems = <T extends Readonly<Record<string, unknown>>>(
  ids: IdentifierItems,
  values: T,
): T => hide(ids, values, true);

/** One value of the record under its key (an item, its addition or unit, or a list group's rows), masked. */
export function maskIdentifierValue(ids: IdentifierItems, key: string, value: unknown): unknown {
  if (ids.items.has(key)) return maskedValue(value);
  const columns = ids.rows.get(key);
  return columns ? hideRows(value, columns, false) : value;
}

/**
 * An audit row as a reader without the permission reads it: an item's change (`item.update`) and a deleted
 * record's snapshot (`crf.delete`) with their identifier values masked. Other rows carry no form value.
 */
export function maskIdentifierAuditRow<
  T extends { action: string; itemName: string | null; oldValue: unknown; newValue: unknown },
>(ids: IdentifierItems, row: T): T {
  if (!hasIdentifierItems(ids)) return row;
  if (row.action === 'item.update' && row.itemName) {
    const oldValue = maskIdentifierValue(ids, row.itemName, row.oldValue);
    const newValue = maskIdentifierValue(ids, row.itemName, row.newValue);
    return oldValue === row.oldValue && newValue === row.newValue ? row : { ...row, oldValue, newValue };
  }
  if (row.action === 'crf.delete' && row.oldValue && typeof row.oldValue === 'object' && !Array.isArray(row.oldValue)) {
    const oldValue = maskIdentifierItems(ids, row.oldValue as Record<string, unknown>);
    return oldValue === row.oldValue ? row : { ...row, oldValue };
  }
  return row;
}

/** What a save makes of the identifiers it was sent (restoreIdentifierItems). */
export interface RestoredIdentifiers {
  /** The values to judge: every mask sent back replaced by the value stored under it. */
  values: Record<string, unknown>;
  /** Keys whose stored identifier the save would change or clear, sent by a saver who may not see it. */
  changed: string[];
  /** List groups and tables with a row carrying a mask that is no stored row as it was shown (it was edited). */
  unmatched: string[];
}

/**
 * The save's side of the rule: a mask sent back means "unchanged" and is replaced by the stored value; a mask where
 * nothing is stored is no value. A saver without the permission (`mayChange` false) may fill an empty identifier but
 * not change or clear a stored one (they cannot see what they would replace), and an identifier left out of the
 * values keeps its stored value. In a list group or table a row is recognised by how it was shown: a row sent back
 * with a mask gets its identifiers from the first unused stored row that masks to exactly it, so rows removed or
 * added around it keep their own; a masked row that was edited matches none and is refused (`unmatched`) rather
 * than given another row's identifiers. Rows without a mask are taken as sent (new rows, rows removed).
 */
export function restoreIdentifierItems(
  ids: IdentifierItems,
  sent: Readonly<Record<string, unknown>>,
  stored: Readonly<Record<string, unknown>>,
  mayChange: boolean,
): RestoredIdentifiers {
  const values: Record<string, unknown> = { ...sent };
  const changed: string[] = [];
  const unmatched: string[] = [];
  for (const key of ids.items) {
    const was = stored[key];
    const mask = isIdentifierMask(sent[key]);
    if (isEmptyValue(was)) {
      if (mask) delete values[key];
    } else if (mask || (!mayChange && !Object.hasOwn(sent, key))) {
      values[key] = was;
    } else if (!mayChange && !sameValue(sent[key], was)) {
      changed.push(key);
    }
  }
  for (const [container, columns] of ids.rows) {
    if (!Object.hasOwn(sent, container)) continue;
    const storedRows = readRows(stored[container]);
    const shown = storedRows.map((row) => hideRow(row, columns, false));
    const used = new Set<number>();
    let refused = false;
    const rows = readRows(sent[container]).map((row) => {
      const masked = [...columns].filter((key) => isIdentifierMask(row[key]));
      if (masked.length === 0) return row;
      const at = shown.findIndex((candidate, i) => !used.has(i) && sameValue(candidate, row));
      if (at < 0) {
        refused = true;
        return row;
      }
      used.add(at);
      const back = { ...row };
      for (const key of masked) back[key] = storedRows[at]![key];
      return back;
    });
    if (refused) unmatched.push(container);
    if (rows.length > 0 || Array.isArray(sent[container])) values[container] = rows;
  }
  return { values, changed, unmatched };
}

/** Whether a value anywhere in the values (a row's cell included) is the mask: it must never be stored. */
export function holdsIdentifierMask(values: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(values).flatMap(([key, value]) =>
    isIdentifierMask(value) || (Array.isArray(value) && value.some((row) => rowHoldsMask(row))) ? [key] : [],
  );
}

const rowHoldsMask = (row: unknown) =>
  typeof row === 'object' && row !== null && Object.values(row).some((cell) => isIdentifierMask(cell));
