import { isDateType, isRowType, isValueType, type CrfDefinition, type CrfNode, type ItemType } from '@ecrf/core';

/** An item of a CRF that holds one value per form (what a list column or a trigger can name). */
export interface CrfItem {
  name: string;
  title: string;
  type: ItemType;
}

/**
 * The items of a definition that hold a single value, in form order: value-bearing types
 * anywhere under sections, groups and cards. Tables and list groups hold rows, not one value,
 * so neither they nor their columns can be a column of the subject list; nodes without a name
 * can't be referred to and are skipped.
 */
export function valueItems(definition: Pick<CrfDefinition, 'children'> | null | undefined): CrfItem[] {
  const items: CrfItem[] = [];
  const walk = (nodes: readonly CrfNode[] | undefined) => {
    for (const node of nodes ?? []) {
      if (isRowType(node.type)) continue;
      if (isValueType(node.type) && node.name) {
        items.push({ name: node.name, title: node.title || node.option?.title || node.name, type: node.type });
      }
      walk(node.children);
    }
  };
  walk(definition?.children);
  return items;
}

/**
 * Items a follow-up date can be counted from: whole dates and date-times. A partial date (only a
 * year or a month) gives no day to count from.
 */
export function dateItems(definition: Pick<CrfDefinition, 'children'> | null | undefined): CrfItem[] {
  return valueItems(definition).filter((item) => isDateType(item.type) && item.type !== 'partialDate');
}

export interface ItemOption {
  value: string;
  label: string;
}

/**
 * Options of the displayCrfColumn picker: item names of every CRF of the study, each once (the
 * first form that uses a name labels it), and names already stored but no longer found kept so
 * they can be seen and removed.
 */
export function displayColumnOptions(
  crfs: ReadonlyArray<{ title: string; definition: Pick<CrfDefinition, 'children'> | null | undefined }>,
  stored: readonly string[] = [],
): ItemOption[] {
  const seen = new Set<string>();
  const options: ItemOption[] = [];
  for (const crf of crfs) {
    for (const item of valueItems(crf.definition)) {
      if (seen.has(item.name)) continue;
      seen.add(item.name);
      options.push({ value: item.name, label: `${crf.title} / ${item.title}（${item.name}）` });
    }
  }
  for (const name of stored) {
    if (!seen.has(name)) {
      seen.add(name);
      options.push({ value: name, label: name });
    }
  }
  return options;
}
