import type { ItemTypeDefinition } from './definition.js';
import type { CrfNode } from '../crf-definition.schema.js';
import { isEmptyValue } from '../field-rules.js';
import { normalizeRow, readRows } from '../value-shapes.js';

/** Containers, rows and display nodes: what arranges or shows items rather than holding a value of its own. */
const noValue = {
  normalize: () => undefined,
  bounded: false,
  hasUnit: false,
  searchKind: () => null,
  exportKind: () => 'text',
  odmDataType: () => 'text',
} as const satisfies Partial<ItemTypeDefinition>;

const container = (type: 'section' | 'group' | 'card', label: string): ItemTypeDefinition => ({
  ...noValue,
  type,
  label,
  role: 'container',
  redcap: { shape: 'structure' },
});

export const section = container('section', '分区');
export const group = container('group', '分组');
export const card = container('card', '卡片');

export const title: ItemTypeDefinition = {
  ...noValue,
  type: 'title',
  label: '标题',
  role: 'display',
  redcap: { shape: 'title' },
};
export const link: ItemTypeDefinition = {
  ...noValue,
  type: 'link',
  label: '链接',
  role: 'display',
  redcap: { shape: 'link', warning: () => '链接导出为 REDCap 的说明字段（descriptive），链接写在标签的 HTML 中' },
};

const rowLabel = (n: number) => `第 ${n} 行`;
const titleOf = (node: CrfNode) => node.title || node.option.title || node.name;

/**
 * A list group or table: its value is an array of rows keyed by its children's names. Its columns are searched
 * row by row, it exports as one text column (its rows go to CSV long and ODM), and it is not imported from a
 * sheet.
 */
const rows = (type: 'listGroup' | 'table', label: string): ItemTypeDefinition => ({
  type,
  label,
  role: 'rows',
  normalize: (raw, node) => readRows(raw).map((row) => normalizeRow(node, row)),
  bounded: false,
  hasUnit: false,
  text: (value, node, { childText }) =>
    readRows(value)
      .map((row, index) => {
        const cells = node.children
          .filter((child) => child.name && !isEmptyValue(row[child.name]))
          .map((child) => `${titleOf(child)}：${childText(child, row[child.name], row)}`);
        return `${rowLabel(index + 1)} ${cells.join('，')}`;
      })
      .join('；'),
  searchKind: () => null,
  exportKind: () => 'text',
  notImportable: 'rows',
  odmDataType: () => 'text',
  redcap: { shape: 'structure' },
});

export const listGroup = rows('listGroup', '列表组');
export const table = rows('table', '表格');
