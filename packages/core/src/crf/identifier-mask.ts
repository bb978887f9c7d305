import type { CrfNode } from './crf-definition.schema.js';
import { isOn } from './options.js';

/**
 * PIPL: what a reader without 查看患者身份信息 gets instead of a filled value of an identifier item (option
 * `identifier`, REDCap's "Identifier?"). One fixed text whatever the value, its type or its length: an item's kind
 * of identifier is not known (a free text can hold a name, an address or a hospital number), so no partial mask
 * (as for the patient's own name or mobile) would be safe for all of them. The save recognises it as "unchanged".
 */
export const IDENTIFIER_MASK = '******';

export const isIdentifierMask = (value: unknown): value is typeof IDENTIFIER_MASK => value === IDENTIFIER_MASK;

/** Whether an item's values identify a person (a column of a list group or table too: its own flag decides). */
export const isIdentifierItem = (node: Pick<CrfNode, 'option'>): boolean => isOn(node.option.identifier);
