import type { Flag, ItemOption, NumberLike } from './crf-definition.schema.js';

/** One reading of the legacy flags: 1, "1", true, "true" and "Y" are on; anything else is off. */
export function isOn(flag: Flag | undefined | null): boolean {
  if (flag === true || flag === 1) return true;
  if (typeof flag === 'string') return ['1', 'true', 'y', 'yes'].includes(flag.trim().toLowerCase());
  return false;
}

/** A numeric option field, or null when absent, blank or not a finite number. */
export function toNumber(value: NumberLike | undefined | null): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const trimmed = value.trim();
  if (trimmed === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) return null;
  return Number(trimmed);
}

/**
 * Splits a comma list (forms §3) on ASCII commas only: Chinese labels often hold a full-width
 * comma ("其他，请注明"), which must stay inside its label.
 */
export function splitList(list: string | number | undefined | null): string[] {
  if (list === undefined || list === null) return [];
  const text = String(list).trim();
  if (text === '') return [];
  return text.split(',').map((part) => part.trim());
}

export interface Choice {
  value: string;
  text: string;
  index: number;
}

/** The choices of an item: optionsValue and optionsText are parallel comma lists. */
export function choicesOf(option: ItemOption): Choice[] {
  const values = splitList(option.optionsValue);
  const texts = splitList(option.optionsText);
  return values.map((value, index) => ({ value, text: texts[index] ?? value, index }));
}

export function hasChoices(option: ItemOption): boolean {
  return splitList(option.optionsValue).length > 0;
}

/** Units: several give a unit selector (forms §3). */
export function unitsOf(option: ItemOption): string[] {
  return splitList(option.units).filter((unit) => unit !== '');
}

/** Index lists such as tindex "0,2" or additionIndex. */
export function indexList(value: NumberLike | undefined): number[] {
  return splitList(value).flatMap((part) => (/^\d+$/.test(part) ? [Number(part)] : []));
}
