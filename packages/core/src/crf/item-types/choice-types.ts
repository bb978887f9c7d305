import type { ItemTypeDefinition } from './definition.js';
import type { CrfNode } from '../crf-definition.schema.js';
import { CRF_MSG } from '../crf-messages.js';
import { additionKey } from '../companion-value-keys.js';
import { choicesOf } from '../options.js';
import { readChoiceList, writeCheckbox, writeMultiSelect, writeText } from '../value-shapes.js';

/** A cell's choice: its code, or failing that the code of the choice whose label it is. */
function choiceCode(node: CrfNode, text: string): string {
  const choices = choicesOf(node.option);
  if (choices.some((c) => c.value === text)) return text;
  return choices.find((c) => c.text.trim() === text)?.value ?? text;
}

/** Several choices in one cell are separated by , ; or | (half- or full-width). */
const CELL_SEPARATOR = /[,，;；|]/;
const cellCodes = (node: CrfNode, text: string) =>
  text
    .split(CELL_SEPARATOR)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => choiceCode(node, part));

/** Every chosen code must be one of the item's choices. */
function validateChoices(value: unknown, node: CrfNode): string | null {
  const allowed = new Set(choicesOf(node.option).map((c) => c.value));
  return readChoiceList(value).every((v) => allowed.has(v)) ? null : CRF_MSG.choiceInvalid;
}

/** Codes read as their labels, joined by 、, with the addition text (补充说明) after them. */
function choiceText(value: unknown, node: CrfNode, values: Readonly<Record<string, unknown>>): string {
  const choices = choicesOf(node.option);
  const text = readChoiceList(value)
    .map((code) => choices.find((choice) => choice.value === code)?.text ?? code)
    .join('、');
  const addition = values[additionKey(node.name)];
  return typeof addition === 'string' && addition ? `${text}（${addition}）` : text;
}

/** ODM: codes that are all whole numbers are integers. */
const singleChoiceDataType = (node: CrfNode) =>
  choicesOf(node.option).every((c) => /^-?\d+$/.test(c.value)) ? 'integer' : 'text';

const single = (type: 'radio' | 'select', label: string): ItemTypeDefinition => ({
  type,
  label,
  role: 'value',
  normalize: (raw) => writeText(raw),
  bounded: false,
  validate: (value, node) => validateChoices(value, node),
  hasUnit: false,
  text: (value, node, { values }) => choiceText(value, node, values),
  searchKind: () => 'choice',
  exportKind: () => 'choice',
  importCell: (text, node) => choiceCode(node, text),
  odmDataType: singleChoiceDataType,
  redcap: { shape: 'choice' },
});

export const radio = single('radio', '单选');
export const select = single('select', '下拉单选');

const multiple = (
  type: 'checkbox' | 'multiSelect',
  label: string,
  write: (codes: readonly string[]) => unknown,
  warning?: () => string,
): ItemTypeDefinition => ({
  type,
  label,
  role: 'value',
  normalize: (raw) => write(readChoiceList(raw)),
  bounded: false,
  validate: (value, node) => validateChoices(value, node),
  hasUnit: false,
  text: (value, node, { values }) => choiceText(value, node, values),
  searchKind: () => 'multiChoice',
  exportKind: () => 'perChoice',
  importCell: (text, node) => write(cellCodes(node, text)),
  odmDataType: () => 'text',
  redcap: { shape: 'choice', ...(warning && { warning }) },
});

export const checkbox = multiple('checkbox', '多选', writeCheckbox);
export const multiSelect = multiple(
  'multiSelect',
  '下拉多选',
  writeMultiSelect,
  () => '下拉多选导出为 REDCap 的复选框（checkbox），数据按选项分列',
);
