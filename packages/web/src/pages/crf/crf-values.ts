import {
  additionKey,
  choicesOf,
  isChoiceType,
  isRowType,
  isValueType,
  readChoiceList,
  readMediaList,
  readRows,
  unitsOf,
  type CrfDefinition,
  type CrfNode,
} from '@ecrf/core';
import { unitKey } from '../../crf';
import { T } from '../../locales/zh-CN';

/** A value item of a form at the top level of its values (a list group or table counts as one). */
export interface FormItem {
  name: string;
  title: string;
  node: CrfNode;
  /** Titles of the sections, groups and cards it sits in, outermost first. */
  path: string[];
  /** The columns of a list group or table. */
  columns: CrfNode[];
}

const titleOf = (node: CrfNode) => node.title || node.option.title || node.name;

/** The form's value items in display order: what history, SDV and queries attach to. */
export function formItems(definition: CrfDefinition): FormItem[] {
  const out: FormItem[] = [];
  const walk = (nodes: readonly CrfNode[], path: string[]) => {
    for (const node of nodes) {
      if (isRowType(node.type)) {
        if (node.name) out.push({ name: node.name, title: titleOf(node), node, path, columns: node.children.filter((c) => c.name && isValueType(c.type)) });
        continue;
      }
      if (node.name && isValueType(node.type)) out.push({ name: node.name, title: titleOf(node), node, path, columns: [] });
      if (node.children.length > 0) walk(node.children, node.title ? [...path, node.title] : path);
    }
  };
  walk(definition.children, []);
  return out;
}

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

export function itemTitle(nodes: ReadonlyMap<string, CrfNode>, name: string): string {
  const node = nodes.get(name);
  if (node) return titleOf(node);
  if (name.endsWith('_addition')) {
    const owner = nodes.get(name.slice(0, -'_addition'.length));
    if (owner) return `${titleOf(owner)}（${owner.option.addition || '补充'}）`;
  }
  if (name.endsWith('_unit')) {
    const owner = nodes.get(name.slice(0, -'_unit'.length));
    if (owner) return `${titleOf(owner)}（单位）`;
  }
  return name;
}

const isBlank = (value: unknown) =>
  value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/**
 * A stored value as a person reads it (PRINT: choice labels, not codes): choice codes become their
 * texts (with the addition text), the chosen or only unit follows a number, uploads are counted and
 * rows are listed. `values` is the whole record, for the unit and addition kept beside the item.
 */
export function formatValue(node: CrfNode | undefined, value: unknown, values: Readonly<Record<string, unknown>> = {}): string {
  if (isBlank(value)) return '';
  if (!node) return typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (isChoiceType(node.type)) {
    const choices = choicesOf(node.option);
    const text = readChoiceList(value)
      .map((code) => choices.find((choice) => choice.value === code)?.text ?? code)
      .join('、');
    const addition = values[additionKey(node.name)];
    return typeof addition === 'string' && addition ? `${text}（${addition}）` : text;
  }
  if (node.type === 'imageUpload' || node.type === 'videoUpload') {
    const count = readMediaList(node.type === 'imageUpload' ? 'image' : 'video', value).length;
    return count > 0 ? `${count} ${node.type === 'imageUpload' ? '张图片' : '个视频'}` : '';
  }
  if (isRowType(node.type)) {
    const rows = readRows(value);
    return rows
      .map((row, index) => {
        const cells = node.children
          .filter((child) => child.name && !isBlank(row[child.name]))
          .map((child) => `${titleOf(child)}：${formatValue(child, row[child.name], row)}`);
        return `${T.crfPage.row(index + 1)} ${cells.join('，')}`;
      })
      .join('；');
  }
  const units = unitsOf(node.option);
  const chosen = values[unitKey(node.name)];
  const unit = typeof chosen === 'string' && chosen ? chosen : units.length > 0 ? units[0] : '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return unit && (node.type === 'int' || node.type === 'real' || node.type === 'number' || node.type === 'input' || node.type === 'text' || node.type === 'slider')
    ? `${text} ${unit}`
    : text;
}

/** The text of a value as stored in an audit row or a query (no record around it). */
export function formatLooseValue(nodes: ReadonlyMap<string, CrfNode>, name: string | null | undefined, value: unknown): string {
  if (isBlank(value)) return '';
  const node = name ? nodes.get(name) : undefined;
  return formatValue(node, value);
}
