import type { ItemTypeDefinition } from './definition.js';
import type { CrfNode } from '../crf-definition.schema.js';
import { writeText } from '../value-shapes.js';

/** A text input validated as an integer or a decimal is a number to search and to export. */
const validatedAsNumber = (node: Pick<CrfNode, 'option'>) =>
  node.option.validate?.type === 'int' || node.option.validate?.type === 'float';

const textual = (type: 'input' | 'text' | 'textarea', label: string): ItemTypeDefinition => ({
  type,
  label,
  role: 'value',
  normalize: (raw) => writeText(raw),
  bounded: { fieldType: 'string' },
  hasUnit: type !== 'textarea',
  searchKind: (node) => (type !== 'textarea' && validatedAsNumber(node) ? 'number' : 'text'),
  exportKind: (node) => (type !== 'textarea' && validatedAsNumber(node) ? 'number' : 'text'),
  odmDataType: () => 'text',
  redcap: { shape: type === 'textarea' ? 'notes' : 'text' },
});

export const input = textual('input', '单行文本');
export const text = textual('text', '文本');
export const textarea = textual('textarea', '多行文本');
