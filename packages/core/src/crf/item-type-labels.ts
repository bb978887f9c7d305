import type { ItemType } from './crf-definition.schema.js';
import { ITEM_TYPE_REGISTRY } from './item-types/registry.js';

/** The Chinese name of each item type: the CRF outline in the browser, the Excel workbook's 题目类型 column. */
export const ITEM_TYPE_LABELS: Readonly<Record<ItemType, string>> = Object.fromEntries(
  Object.values(ITEM_TYPE_REGISTRY).map((definition) => [definition.type, definition.label]),
) as Record<ItemType, string>;
