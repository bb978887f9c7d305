import type { ItemTypeDefinition } from './definition.js';
import { CRF_MSG } from '../crf-messages.js';
import { sliderRange } from '../layout.js';
import { scalarText, writeText } from '../value-shapes.js';

const numeric = (type: 'int' | 'real' | 'number', label: string): ItemTypeDefinition => ({
  type,
  label,
  role: 'value',
  normalize: (raw) => writeText(raw),
  bounded: { fieldType: type === 'int' ? 'int' : 'float' },
  hasUnit: true,
  searchKind: () => 'number',
  exportKind: () => 'number',
  odmDataType: () => (type === 'int' ? 'integer' : 'float'),
  redcap: { shape: type === 'int' ? 'integer' : 'decimal' },
});

export const int = numeric('int', '整数');
export const real = numeric('real', '小数');
export const number = numeric('number', '数字');

/** A slider's value is a number inside its range (forms §5, §9). */
export const slider: ItemTypeDefinition = {
  type: 'slider',
  label: '滑块',
  role: 'value',
  normalize: (raw) => {
    const text = scalarText(raw).trim();
    const n = typeof raw === 'number' ? raw : Number(text);
    return text === '' || !Number.isFinite(n) ? undefined : n;
  },
  bounded: false,
  validate: (value, node) => {
    const { min, max } = sliderRange(node.option);
    const n = typeof value === 'number' ? value : Number.NaN;
    return n >= min && n <= max ? null : CRF_MSG.sliderOutOfRange(min, max);
  },
  hasUnit: true,
  searchKind: () => 'number',
  exportKind: () => 'number',
  importCell: (text) => {
    const n = Number(text);
    return Number.isFinite(n) ? n : text;
  },
  odmDataType: () => 'float',
  redcap: { shape: 'slider' },
};
