import { itemTitle, type CrfNode } from '@ecrf/core';
import type { ItemIssue } from '../../api/crf.api';
import { cellKey } from '../../crf';
import { CRF_PAGE_TEXT } from '../../locales/crf-page.zh-CN';

/** One item a refused save names: what the nurse reads in the list and where the form is scrolled to. */
export interface ErrorListEntry {
  /** The item's key in the form: its name, or `list[0].child` for a cell of a list group or table. */
  key: string;
  /** The top-level item it belongs to (the list group for a cell): the block to scroll to when the field has no id. */
  itemName: string;
  /** As a person reads it: 收缩压, or 植入物 · 第 1 行 · 名称. */
  title: string;
  messages: string[];
}

/** The item a unit or addition value (`x_unit`, `x_addition`) is kept beside. */
const ownerOf = (name: string, nodes: ReadonlyMap<string, CrfNode>) => {
  if (nodes.has(name)) return name;
  for (const suffix of ['_addition', '_unit']) {
    if (name.endsWith(suffix) && nodes.has(name.slice(0, -suffix.length))) return name.slice(0, -suffix.length);
  }
  return name;
};

/**
 * The items of a refused save (400 with `data.errors`), one entry per item with all its messages, in
 * the order the form shows them (`order`: the form's top-level item names, display order), rows in
 * row order. A save is refused as a whole, so the nurse must see every item, not only a count.
 */
export function buildErrorList(
  issues: readonly ItemIssue[],
  nodes: ReadonlyMap<string, CrfNode>,
  order: readonly string[],
): ErrorListEntry[] {
  const entries = new Map<string, ErrorListEntry & { rank: number; row: number }>();
  for (const issue of issues) {
    const inRow = Boolean(issue.groupName) && issue.groupIndex !== null && issue.groupIndex !== undefined;
    const top = inRow ? issue.groupName! : ownerOf(issue.itemName, nodes);
    const key = inRow ? cellKey(issue.groupName!, issue.groupIndex!, issue.itemName) : issue.itemName;
    let entry = entries.get(key);
    if (!entry) {
      const rank = order.indexOf(top);
      entry = {
        key,
        itemName: top,
        title: inRow
          ? `${itemTitle(nodes, issue.groupName!)} · ${CRF_PAGE_TEXT.errorRow(issue.groupIndex! + 1)} · ${itemTitle(nodes, issue.itemName)}`
          : itemTitle(nodes, issue.itemName),
        messages: [],
        rank: rank < 0 ? Number.MAX_SAFE_INTEGER : rank,
        row: inRow ? issue.groupIndex! : -1,
      };
      entries.set(key, entry);
    }
    if (issue.message && !entry.messages.includes(issue.message)) entry.messages.push(issue.message);
  }
  return [...entries.values()]
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => a.entry.rank - b.entry.rank || a.entry.row - b.entry.row || a.index - b.index)
    .map(({ entry: { rank: _rank, row: _row, ...entry } }) => entry);
}

/** How many titles the toast names before "等 N 项". */
export const MESSAGE_TITLES = 3;

/** The toast of a refused save: the server's message followed by the items, never the message alone. */
export function errorMessage(message: string, entries: readonly ErrorListEntry[]): string {
  if (entries.length === 0) return message;
  const titles = [...new Set(entries.map((e) => e.title))];
  return CRF_PAGE_TEXT.errorMessage(message, titles.slice(0, MESSAGE_TITLES), titles.length);
}
