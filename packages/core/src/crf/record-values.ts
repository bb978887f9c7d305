import type { CrfNode, CrfDefinition } from './crf-definition.schema.js';
import { isContainerType, isDateType, isRowType, isValueType } from './crf-definition.schema.js';
import { unitKey } from './evaluate-form.js';
import { isEmptyValue } from './field-rules.js';
import { IDENTIFIER_MASK, isIdentifierMask } from './identifier-mask.js';
import { unitsOf } from './options.js';
import { displayDate } from './partial-date.js';
import { FILE_DOWNLOAD_PATH, fileReference, readMediaList, readRows } from './value-shapes.js';
import { itemTypeOf } from './item-types/registry.js';

/**
 * One rule for "did this value change", shared by the server (audit, reason for change, SDV and
 * signature invalidation, conflicts) and the browser (unsaved changes, reason prompt, drafts).
 *
 * Values come back from jsonb with their object keys re-ordered, and the browser holds numbers its
 * widgets typed as text: neither is a change. Empty text, an empty list and absence are one value.
 */
export function canonicalValue(value: unknown): unknown {
  if (isEmptyValue(value)) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) {
      const canonical = canonicalValue((value as Record<string, unknown>)[key]);
      if (canonical !== null) out[key] = canonical;
    }
    return Object.keys(out).length === 0 ? null : out;
  }
  return null;
}

/** The canonical value as text: equal texts mean equal values. */
export function canonicalText(value: unknown): string {
  return JSON.stringify(canonicalValue(value));
}

export function sameValue(a: unknown, b: unknown): boolean {
  return canonicalText(a) === canonicalText(b);
}

/** The top-level items whose value differs between two value sets. */
export function changedItemNames(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (key) => !sameValue(before[key], after[key]),
  );
}

/** Form record states (forms §4): what the sidebar, the list and the server agree on. */
export const FORM_STATE = { notStarted: 0, incomplete: 1, submitted: 2, doubt: 9 } as const;
export type FormStateCode = (typeof FORM_STATE)[keyof typeof FORM_STATE];

/** A form's state from its records: no record 未开始; an open query on one 存在质疑; all submitted 已提交. */
export function formStateOf(
  records: ReadonlyArray<{ id?: number; state: number }>,
  recordIdsWithQueries: ReadonlySet<number> = new Set(),
): FormStateCode {
  if (records.length === 0) return FORM_STATE.notStarted;
  if (records.some((r) => r.id !== undefined && recordIdsWithQueries.has(r.id))) return FORM_STATE.doubt;
  return records.some((r) => r.state !== FORM_STATE.submitted) ? FORM_STATE.incomplete : FORM_STATE.submitted;
}

/** A change to a submitted record needs a reason (修改原因); saving it unchanged does not (CRF-27). */
export function reasonRequired(recordState: number | null | undefined, changedItems: readonly string[]): boolean {
  return recordState === FORM_STATE.submitted && changedItems.length > 0;
}

const titleOf = (node: CrfNode) => node.title || node.option.title || node.name;

/** Every named node (columns included) by name, for titles and value texts. */
export function nodesByName(definition: CrfDefinition): Map<string, CrfNode> {
  const out = new Map<string, CrfNode>();
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (node.name && !out.has(node.name)) out.set(node.name, node);
      walk(node.children);
    }
  };
  walk(definition.children);
  return out;
}

/**
 * A form's value items in form order, each name once (its first node): sections, groups and cards looked into;
 * a list group or table is one item, its columns staying inside its rows. The items import and export read.
 */
export function formValueItems(definition: Pick<CrfDefinition, 'children'>): CrfNode[] {
  const out: CrfNode[] = [];
  const seen = new Set<string>();
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (isContainerType(node.type)) walk(node.children);
      else if (isValueType(node.type) && node.name && !seen.has(node.name)) {
        seen.add(node.name);
        out.push(node);
      }
    }
  };
  walk(definition.children);
  return out;
}

/** The title of the text typed beside a choice item's option (其他（请注明）), kept under additionKey. */
export const additionTitle = (owner: CrfNode) => `${titleOf(owner)}（${owner.option.addition || '补充'}）`;

/** An item's title; the unit and addition kept beside an item are titled after it. */
export function itemTitle(nodes: ReadonlyMap<string, CrfNode>, name: string): string {
  const node = nodes.get(name);
  if (node) return titleOf(node);
  if (name.endsWith('_addition')) {
    const owner = nodes.get(name.slice(0, -'_addition'.length));
    if (owner) return additionTitle(owner);
  }
  if (name.endsWith('_unit')) {
    const owner = nodes.get(name.slice(0, -'_unit'.length));
    if (owner) return `${titleOf(owner)}（单位）`;
  }
  return name;
}

/**
 * The unit a value of this item is read in: the one chosen in its unit selector (kept beside it as
 * `<name>_unit` in `values`), else its only or first unit; '' for items that show no unit.
 */
export function unitOf(node: CrfNode | undefined, values: Readonly<Record<string, unknown>> = {}): string {
  if (!node || !itemTypeOf(node.type).hasUnit) return '';
  const units = unitsOf(node.option);
  const chosen = values[unitKey(node.name)];
  return typeof chosen === 'string' && chosen ? chosen : (units[0] ?? '');
}

/**
 * The stored-file key a file reference names: a value without a slash is a key (forms §3), and the
 * download call's own address names one in its `fileKey`; any other URL is not ours.
 */
export function storedFileKey(value: string): string | null {
  const ref = fileReference(value);
  if (ref.kind === 'key') return ref.key;
  const [path = '', query = ''] = value.split('?');
  if (!path.endsWith(FILE_DOWNLOAD_PATH)) return null;
  return new URLSearchParams(query).get('fileKey');
}

/**
 * A stored file reference (a key or a URL) as a name: the original name of a key when known. An address the key
 * cannot be read from here (an object store address of the external mode, whose key the server derives) is named
 * when `fileNames` holds the address itself.
 */
export function fileLabel(value: string, fileNames?: ReadonlyMap<string, string>): string {
  const key = storedFileKey(value);
  if (key !== null) return fileNames?.get(key) ?? key;
  const named = fileNames?.get(value);
  if (named !== undefined) return named;
  const last = value.split('?')[0]!.split('/').filter(Boolean).pop() ?? value;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Items whose values are uploaded files (references to stored files, never to be shown as such). */
export const isUploadItem = (node: Pick<CrfNode, 'type'>) =>
  node.type === 'fileUpload' || node.type === 'imageUpload' || node.type === 'videoUpload';

/** The file references (keys or URLs) an upload item's value holds, in order. */
export function fileValuesOf(node: CrfNode | undefined, value: unknown): string[] {
  if (!node || isEmptyValue(value)) return [];
  if (node.type === 'imageUpload') return readMediaList('image', value).map((e) => e.dialogImgUrl);
  if (node.type === 'videoUpload') return readMediaList('video', value).map((e) => e.dialogVideoUrl);
  if (node.type === 'fileUpload') return typeof value === 'string' && value.trim() ? [value.trim()] : [];
  if (isRowType(node.type)) {
    return readRows(value).flatMap((row) => node.children.flatMap((child) => fileValuesOf(child, row[child.name])));
  }
  return [];
}

export interface ValueTextOptions {
  /**
   * Original names of stored files by key: given, uploads read as their file names (with the
   * entry's remarks) instead of a count, and a file item as its name instead of its key.
   */
  fileNames?: ReadonlyMap<string, string>;
}

/**
 * A stored value as a person reads it (PRINT: choice labels, not codes): choice codes become their
 * texts (with the addition text), the chosen or only unit follows a number, uploads are counted (or
 * named, see `options.fileNames`) and rows are listed. `values` is the whole record, for the unit
 * and addition kept beside the item.
 */
export function valueText(
  node: CrfNode | undefined,
  value: unknown,
  values: Readonly<Record<string, unknown>> = {},
  options: ValueTextOptions = {},
): string {
  if (isEmptyValue(value)) return '';
  // A masked identifier reads as its mask, without the addition text or unit kept beside it.
  if (isIdentifierMask(value)) return IDENTIFIER_MASK;
  if (!node) return typeof value === 'object' ? JSON.stringify(value) : String(value);
  const typed = itemTypeOf(node.type).text?.(value, node, {
    values,
    fileNames: options.fileNames,
    childText: (child, childValue, row) => valueText(child, childValue, row, options),
  });
  if (typed !== undefined) return typed;
  const unit = unitOf(node, values);
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return unit ? `${text} ${unit}` : text;
}

/** The first date or date-time item of a form (sections, groups and cards looked into; rows not). */
function firstDateItem(definition: CrfDefinition): CrfNode | null {
  const walk = (list: readonly CrfNode[]): CrfNode | null => {
    for (const node of list) {
      if (node.name && (node.type === 'date' || node.type === 'datetime')) return node;
      if (isRowType(node.type)) continue;
      const found = walk(node.children);
      if (found) return found;
    }
    return null;
  };
  return walk(definition.children);
}

/**
 * A short reading of a record for the list of a repeatable form's records: the form's first date
 * (or date-time) item leads when it is filled, because a visit is found by its date; then the first
 * filled top-level value items as `标题：文本`, in the form's order, up to `limit` parts in all.
 * Dates containing 1900 read as empty (forms §9).
 */
export function recordSummary(definition: CrfDefinition, values: Readonly<Record<string, unknown>>, limit = 3): string {
  const nodes = nodesByName(definition);
  const parts: string[] = [];
  const dateItem = firstDateItem(definition);
  const dateValue = dateItem ? values[dateItem.name] : undefined;
  const dateText = typeof dateValue === 'string' ? displayDate(dateValue) : '';
  if (dateItem && dateText) parts.push(`${itemTitle(nodes, dateItem.name)}：${dateText}`);
  const walk = (list: readonly CrfNode[]) => {
    for (const node of list) {
      if (parts.length >= limit) return;
      if (node.name && isValueType(node.type) && !isRowType(node.type)) {
        if (node !== dateItem && !isEmptyValue(values[node.name]) && !isBlankDate(node, values[node.name])) {
          parts.push(`${itemTitle(nodes, node.name)}：${valueText(node, values[node.name], values)}`);
        }
        continue;
      }
      if (!isRowType(node.type)) walk(node.children);
    }
  };
  walk(definition.children);
  return parts.join('；');
}

const isBlankDate = (node: CrfNode, value: unknown) =>
  isDateType(node.type) && typeof value === 'string' && displayDate(value) === '';
