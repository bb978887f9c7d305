import { DatePicker, Input, InputNumber, Select } from 'antd';
import { choicesOf, dateFormatOf, type CrfNode } from '@ecrf/core';
import { toDayjs, toDayjsFormat } from '../../../crf/widgets/date-utils';
import { DOUBLE_ENTRY_TEXT as t } from '../../../locales/double-entry.zh-CN';

/** 自定义's value: text, a number as its text, a date in the item's own format, an option value or a list of them. */
export type CustomValue = string | string[];

const NUMBER_TYPES = new Set(['int', 'real', 'number', 'slider']);
const DATE_TYPES = new Set(['date', 'datetime']);
const SINGLE_CHOICE = new Set(['radio', 'select']);
const MULTI_CHOICE = new Set(['checkbox', 'multiSelect']);

export interface CustomValueInputProps {
  node: CrfNode | undefined;
  /** The item's title: names the control. */
  title: string;
  value: CustomValue;
  onChange: (value: CustomValue) => void;
  disabled?: boolean;
}

/**
 * 双录入核对 · 自定义 (issue 37): the value read from the paper CRF, typed in a control that fits the item: a number
 * input for numbers, a date picker in the item's format for dates, a select of the item's options for choices, plain
 * text otherwise. What it gives is what the form would store; the server's checks judge it on 确认核对.
 */
export function CustomValueInput({ node, title, value, onChange, disabled }: CustomValueInputProps) {
  const common = { size: 'small' as const, disabled, 'aria-label': `${title}${t.custom}`, style: { width: '100%' } };
  const type = node?.type ?? 'text';
  const text = typeof value === 'string' ? value : '';
  if (node && NUMBER_TYPES.has(type)) {
    return (
      <InputNumber<string>
        {...common}
        stringMode
        placeholder={t.customPlaceholder}
        value={text === '' ? null : text}
        onChange={(v) => onChange(v === null || v === undefined ? '' : String(v))}
      />
    );
  }
  if (node && DATE_TYPES.has(type)) {
    // The item's own format (core's yyyy-MM-dd HH:mm), as the form's date widgets read and write it.
    const format = toDayjsFormat(dateFormatOf(node));
    const parsed = text ? toDayjs(text, dateFormatOf(node)) : null;
    return (
      <DatePicker
        {...common}
        format={format}
        showTime={type === 'datetime'}
        placeholder={format}
        value={parsed}
        onChange={(d) => onChange(d ? d.format(format) : '')}
      />
    );
  }
  if (node && (SINGLE_CHOICE.has(type) || MULTI_CHOICE.has(type))) {
    const options = choicesOf(node.option).map((c) => ({ value: c.value, label: c.text }));
    const multiple = MULTI_CHOICE.has(type);
    return (
      <Select
        {...common}
        allowClear
        mode={multiple ? 'multiple' : undefined}
        options={options}
        placeholder={t.customPlaceholder}
        value={multiple ? (Array.isArray(value) ? value : []) : text || undefined}
        onChange={(v: string | string[] | undefined) => onChange(v ?? (multiple ? [] : ''))}
      />
    );
  }
  return (
    <Input {...common} placeholder={t.customPlaceholder} value={text} onChange={(e) => onChange(e.target.value)} />
  );
}
