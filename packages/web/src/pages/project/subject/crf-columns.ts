import { choicesOf, isChoiceType, readChoiceList, unitsOf, type Choice, type CrfNode, type ItemType } from '@ecrf/core';

/** What the patient list needs to show a CRF item as a column: its title and choice texts. */
export interface CrfColumnItem {
  name: string;
  title: string;
  type: ItemType;
  choices: Choice[];
  unit: string | null;
}

/**
 * Item name → title and choices over the study's CRFs, first form first (a name used by two
 * forms is labelled by the first, as the column picker of 项目配置 does).
 */
export function crfColumnItems(definitions: ReadonlyArray<{ children: readonly CrfNode[] } | null | undefined>) {
  const items = new Map<string, CrfColumnItem>();
  const walk = (nodes: readonly CrfNode[] | undefined) => {
    for (const node of nodes ?? []) {
      if (node.name && !items.has(node.name)) {
        const units = unitsOf(node.option ?? {});
        items.set(node.name, {
          name: node.name,
          title: node.title || node.name,
          type: node.type,
          choices: isChoiceType(node.type) ? choicesOf(node.option ?? {}) : [],
          unit: units.length === 1 ? units[0]! : null,
        });
      }
      walk(node.children);
    }
  };
  for (const definition of definitions) walk(definition?.children);
  return items;
}

/** A stored CRF value as text: choice codes become their texts, a single unit is appended. */
export function formatCrfValue(value: unknown, item: CrfColumnItem | undefined): string {
  if (value === undefined || value === null || value === '') return '';
  if (item && item.choices.length > 0) {
    return readChoiceList(value)
      .map((code) => item.choices.find((choice) => choice.value === code)?.text ?? code)
      .join('、');
  }
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join('、');
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  return item?.unit ? `${text} ${item.unit}` : text;
}
