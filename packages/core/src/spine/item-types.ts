import type { ItemTypeDefinition } from '../crf/item-types/definition.js';
import { spineCobbError, spineCobbRules, writeSpineCobb } from './cobb-item.js';
import { spineMeasureError, spineMeasureRules, spineMeasureText, writeSpineMeasure } from './item-value.js';

/**
 * The spine tools as CRF item types (docs/spine-tools.md): the engine knows them only through these
 * registrations. Each value is the measurement's JSON; the items a spine item names in its options are
 * calculated from it (impliedRules), so they are saved, searched, exported and range-checked as ordinary items.
 */
const spine = {
  role: 'value',
  bounded: false,
  hasUnit: false,
  searchKind: () => 'text',
  exportKind: () => 'text',
  odmDataType: () => 'text',
  // The measurement's result (JSON) is kept; REDCap has no canvas to draw or correct it on.
  redcap: {
    shape: 'json',
    warning: () => '脊柱测量导出为 REDCap 的多行文本字段，内容为测量结果（JSON），不能在 REDCap 中绘制或修正',
  },
} as const satisfies Partial<ItemTypeDefinition>;

/** The automatic Cobb angle tool: its value is the recognition result, its angles checked against its landmarks. */
export const spineCobb: ItemTypeDefinition = {
  ...spine,
  type: 'spineCobb',
  label: '脊柱自动测量',
  normalize: (raw) => writeSpineCobb(raw),
  validate: (value) => spineCobbError(value),
  impliedRules: (nodes) => spineCobbRules(nodes),
};

/** The manual measurement (forms §3, §4): lines and angles drawn on the X-ray, read as their numbers and diagnoses. */
export const spineMeasure: ItemTypeDefinition = {
  ...spine,
  type: 'spineMeasure',
  label: '脊柱手动测量',
  normalize: (raw) => writeSpineMeasure(raw),
  validate: (value) => spineMeasureError(value),
  text: (value) => spineMeasureText(value),
  impliedRules: (nodes) => spineMeasureRules(nodes),
};
