import type { CrfNode, ItemOption } from './crf-definition.schema.js';
import { choicesOf, toNumber, unitsOf } from './options.js';

/** forms §9 */
export const GRID_COLUMNS = 24;
export const TABLE_DATE_COLUMN_WIDTH = 180;
export const TABLE_COLUMN_BASE_WIDTH = 150;
export const TABLE_WIDTH_PER_CHAR = 16;
export const TABLE_LABEL_PADDING = 40;

/**
 * Minimum width of a table column for a child item (forms §9): date 180; int, real and text 150
 * plus 16 per unit character (the longest unit when there are several); others the larger of 150
 * and 16 per label character plus 40.
 */
export function tableColumnMinWidth(node: CrfNode): number {
  if (node.type === 'date' || node.type === 'datetime' || node.type === 'partialDate') return TABLE_DATE_COLUMN_WIDTH;
  if (node.type === 'int' || node.type === 'real' || node.type === 'text') {
    const unitChars = Math.max(0, ...unitsOf(node.option).map((u) => [...u].length));
    return TABLE_COLUMN_BASE_WIDTH + TABLE_WIDTH_PER_CHAR * unitChars;
  }
  const label = node.title || node.option.title || '';
  return Math.max(TABLE_COLUMN_BASE_WIDTH, TABLE_WIDTH_PER_CHAR * [...label].length + TABLE_LABEL_PADDING);
}

/**
 * Grid span of an item in the 24-column form grid: cols divided by the section's crfCols, as a
 * share of 24 (forms §9). cols defaults to 1 and crfCols to 1 (one item per row); the span is
 * at least 1 and at most 24.
 */
export function gridSpan(
  cols: number | string | undefined | null,
  crfCols: number | string | undefined | null,
): number {
  const c = toNumber(cols ?? null);
  const per = toNumber(crfCols ?? null);
  const share = (c !== null && c > 0 ? c : 1) / (per !== null && per > 0 ? per : 1);
  return Math.min(GRID_COLUMNS, Math.max(1, Math.floor(GRID_COLUMNS * share)));
}

/** forms §5, §9: slider range from valueMin/valueMax, else the first and last option; step valueStep; defaults 0, 10, 1. */
export const SLIDER_DEFAULTS = { min: 0, max: 10, step: 1 } as const;

export function sliderRange(option: ItemOption): { min: number; max: number; step: number } {
  const choices = choicesOf(option);
  const first = choices.length > 0 ? toNumber(choices[0]!.value) : null;
  const last = choices.length > 0 ? toNumber(choices[choices.length - 1]!.value) : null;
  const min = toNumber(option.valueMin) ?? first ?? SLIDER_DEFAULTS.min;
  const max = toNumber(option.valueMax) ?? last ?? SLIDER_DEFAULTS.max;
  const step = toNumber(option.valueStep);
  return { min, max, step: step !== null && step > 0 ? step : SLIDER_DEFAULTS.step };
}
