/**
 * The keys under which an item's companion values are stored beside its own: a choice item's addition text and the
 * unit chosen in a unit selector. A leaf module: exports, item types and the engine all name them.
 */
import { isChoiceType, type CrfNode } from './crf-definition.schema.js';
import { indexList } from './options.js';

/** The key under which a choice item's addition text is stored. */
export const additionKey = (name: string) => `${name}_addition`;

/**
 * Whether a choice item has an addition text box (其他（请注明）): one of its options shows it, as the engine
 * decides (additionVisible). Its text is a value of its own in every export.
 */
export const hasAddition = (node: Pick<CrfNode, 'name' | 'type' | 'option'>) =>
  node.name !== '' && isChoiceType(node.type) && indexList(node.option.additionIndex).length > 0;

/** The key under which the unit chosen in a unit selector is stored (items with several units). */
export const unitKey = (name: string) => `${name}_unit`;
