import type { ImpliedRule, ItemTypeDefinition } from './definition.js';
import { checkbox, multiSelect, radio, select } from './choice-types.js';
import { date, datetime, partialDate, time } from './date-types.js';
import { card, group, link, listGroup, section, table, title } from './layout-types.js';
import { int, number, real, slider } from './number-types.js';
import { input, text, textarea } from './text-types.js';
import { fileUpload, imageUpload, videoUpload } from './upload-types.js';
import type { CrfNode, ItemType } from '../crf-definition.schema.js';
import { spineCobb, spineMeasure } from '../../spine/item-types.js';

/**
 * Every item type's definition, keyed by its name. A `Record` over ItemType: a type added to ITEM_TYPES without
 * a registration here does not compile.
 */
export const ITEM_TYPE_REGISTRY: Readonly<Record<ItemType, ItemTypeDefinition>> = {
  section,
  title,
  group,
  listGroup,
  link,
  checkbox,
  radio,
  select,
  multiSelect,
  slider,
  table,
  input,
  textarea,
  int,
  real,
  text,
  number,
  date,
  datetime,
  partialDate,
  time,
  imageUpload,
  videoUpload,
  fileUpload,
  card,
  spineCobb,
  spineMeasure,
};

/** What an item type is and does. */
export function itemTypeOf(type: ItemType): ItemTypeDefinition {
  return ITEM_TYPE_REGISTRY[type];
}

/** The calculations item types imply in a form (the spine tools fill the items they name), in registry order. */
export function impliedRules(nodes: readonly CrfNode[]): ImpliedRule[] {
  return Object.values(ITEM_TYPE_REGISTRY).flatMap((definition) => definition.impliedRules?.(nodes) ?? []);
}
